import { useEffect, useState } from 'preact/hooks';
import { type AuditEvent, call, type Company, type Page, query, type Token } from '../api';
import { companyLabel, SelectField } from '../filters';
import { ErrorMessage, Field, PagedTable, usePaged, useTitle, when } from '../ui';

export interface AuditFilter {
  company_id?: string;
  token_id?: string;
}

/** The first page of a list, or its error. */
function useFirstPage<T>(path: string): { rows: T[]; error: unknown } {
  const [state, setState] = useState<{ rows: T[]; error: unknown }>({ rows: [], error: null });
  useEffect(() => {
    let current = true;
    call<Page<T>>('GET', path).then(
      (page) => current && setState({ rows: page.data, error: null }),
      (error: unknown) => current && setState({ rows: [], error }),
    );
    return () => {
      current = false;
    };
  }, [path]);
  return state;
}

/**
 * The audit trail, newest first, filtered by company and token (the filter lives in the page's address). The
 * companies to choose from are found by name; the tokens are the chosen company's (the admin tokens when none).
 */
export function Audit({
  filter,
  onFilter,
}: {
  filter: AuditFilter;
  onFilter: (filter: AuditFilter) => void;
}) {
  const paged = usePaged(
    (page) => call<Page<AuditEvent>>('GET', `/audit-events${query({ ...filter, page })}`),
    `audit-${filter.company_id ?? ''}-${filter.token_id ?? ''}`,
  );
  const [companySearch, setCompanySearch] = useState('');
  const [searched, setSearched] = useState('');
  const [companyId, setCompanyId] = useState(filter.company_id ?? '');
  const [tokenId, setTokenId] = useState(filter.token_id ?? '');
  const found = useFirstPage<Company>(`/companies${query({ name: searched })}`);
  const [filtered, setFiltered] = useState<Company | null>(null);
  useEffect(() => {
    if (!filter.company_id) return;
    call<Company>('GET', `/companies/${filter.company_id}`).then(setFiltered, () => setFiltered(null));
  }, [filter.company_id]);
  const tokens = useFirstPage<Token>(
    `/tokens${query(companyId ? { company_id: companyId } : { role: 'admin' })}`,
  );
  const companies = [...(filtered ? [filtered] : []), ...found.rows.filter((c) => c.id !== filtered?.id)];
  useTitle(filtered ? `Audit trail of ${companyLabel(filtered)}` : 'Audit trail');
  return (
    <main>
      <h1>Audit trail{filtered && ` of ${companyLabel(filtered)}`}</h1>
      <form
        class="card filter"
        role="search"
        aria-label="Find a company"
        onSubmit={(event) => {
          event.preventDefault();
          setSearched(companySearch.trim());
        }}
      >
        <div class="row">
          <Field
            label="Search companies"
            value={companySearch}
            onInput={setCompanySearch}
            hint="A part of the company's name: the matching companies (25 at most) are offered below."
          />
        </div>
        <button type="submit">Find companies</button>
        <ErrorMessage error={found.error} />
      </form>
      <form
        class="card filter"
        aria-label="Filter the audit trail"
        onSubmit={(event) => {
          event.preventDefault();
          onFilter({ company_id: companyId || undefined, token_id: tokenId || undefined });
        }}
      >
        <div class="row">
          <SelectField
            label="Company"
            value={companyId}
            onChange={(value) => {
              setCompanyId(value);
              setTokenId('');
            }}
            options={[
              ['', 'Every company'],
              ...companies.map(
                (company) => [String(company.id), `${companyLabel(company)} · ${company.id}`] as const,
              ),
            ]}
          />
          <SelectField
            label="Token"
            value={tokenId}
            onChange={setTokenId}
            options={[
              ['', 'Every token'],
              ...tokens.rows.map(
                (token) =>
                  [String(token.id), `${token.user_name} · token ${token.id} (${token.prefix})`] as const,
              ),
            ]}
          />
        </div>
        <p class="hint">Tokens of the chosen company; with every company, the admin tokens.</p>
        <button type="submit">Apply filter</button>
        <ErrorMessage error={tokens.error} />
      </form>
      <PagedTable
        label="Audit events"
        paged={paged}
        empty="No changes recorded for this filter."
        head={
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who (token)</th>
            <th scope="col">Company</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Fields</th>
          </tr>
        }
        row={(event) => (
          <tr key={event.id}>
            <td>{when(event.occurred_at)}</td>
            <td>
              {event.user_name} ({event.token_id === null ? 'CLI' : `token ${event.token_id}`})
            </td>
            <td>{event.company_id === null ? '—' : `${event.company_name ?? ''} (${event.company_id})`}</td>
            <td>{event.action}</td>
            <td>
              {event.target_type === 'order' ? (
                <a href={`#/orders/${event.target_id}`}>order {event.target_id}</a>
              ) : (
                `${event.target_type} ${event.target_id}`
              )}
            </td>
            <td>{event.changed_fields.join(', ')}</td>
          </tr>
        )}
      />
    </main>
  );
}
