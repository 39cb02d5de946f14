import type { ComponentChildren } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import { call, type Company } from './api';

/** A labelled choice among a few values; the empty value means "any". */
export function SelectField(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly (readonly [value: string, label: string])[];
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(event) => props.onChange(event.currentTarget.value)}>
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * A list's filter: its fields, "Apply filter" and "Clear"; the list (paged by the API) reloads from page 1 with
 * what was applied. The filter is a search landmark named after the list.
 */
export function FilterForm(props: {
  label: string;
  onApply: () => void;
  onClear: () => void;
  children: ComponentChildren;
}) {
  return (
    <form
      class="card filter"
      role="search"
      aria-label={props.label}
      onSubmit={(event) => {
        event.preventDefault();
        props.onApply();
      }}
    >
      <div class="row">{props.children}</div>
      <div class="actions">
        <button type="submit">Apply filter</button>
        <button type="button" onClick={props.onClear}>
          Clear
        </button>
      </div>
    </form>
  );
}

/** A company as a screen names it: "Demo Restaurants (SK)". */
export const companyLabel = (company: Pick<Company, 'name' | 'site'>): string =>
  `${company.name} (${company.site})`;

/**
 * The company a screen is about, read once from the API (GET /admin/companies/{id}); null while it loads or when
 * it cannot be read (the error is returned to show as the API said it).
 */
export function useCompany(companyId: number): { company: Company | null; error: unknown } {
  const [state, setState] = useState<{ company: Company | null; error: unknown }>({
    company: null,
    error: null,
  });
  useEffect(() => {
    let current = true;
    call<Company>('GET', `/companies/${companyId}`).then(
      (company) => current && setState({ company, error: null }),
      (error: unknown) => current && setState({ company: null, error }),
    );
    return () => {
      current = false;
    };
  }, [companyId]);
  return state;
}
