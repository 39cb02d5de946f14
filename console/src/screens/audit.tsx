import { useState } from 'preact/hooks';
import { type AuditEvent, call, type Page, query } from '../api';
import { Field, PagedTable, usePaged, useTitle, when } from '../ui';

export interface AuditFilter {
  company_id?: string;
  token_id?: string;
}

/** The audit trail, newest first, filtered by company and token (the filter lives in the page's address). */
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
  const [companyId, setCompanyId] = useState(filter.company_id ?? '');
  const [tokenId, setTokenId] = useState(filter.token_id ?? '');
  useTitle('Audit trail');
  return (
    <main>
      <h1>Audit trail</h1>
      <form
        class="card"
        aria-label="Filter the audit trail"
        onSubmit={(event) => {
          event.preventDefault();
          onFilter({ company_id: companyId.trim() || undefined, token_id: tokenId.trim() || undefined });
        }}
      >
        <div class="row">
          <Field label="Company id" value={companyId} onInput={setCompanyId} hint="Empty: every company." />
          <Field label="Token id" value={tokenId} onInput={setTokenId} hint="Empty: every token." />
        </div>
        <button type="submit">Apply filter</button>
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
              {event.user_name} ({event.token_id ?? 'CLI'})
            </td>
            <td>{event.company_id ?? '—'}</td>
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
