import { useState } from 'preact/hooks';
import { call, type LoggedRequest, type LoggedRequestDetail, type Page, query } from '../api';
import { FilterForm } from '../filters';
import { ErrorMessage, Field, PagedTable, useLoaded, usePaged, useTitle, when } from '../ui';

export const REQUEST_FILTER_KEYS = ['company_id', 'status', 'route', 'token_id', 'from', 'to'] as const;

/** The request log's filters, as the page's address keeps them (`#/requests?company_id=3&status=4xx`). */
export type RequestFilter = Partial<Record<(typeof REQUEST_FILTER_KEYS)[number], string>>;

/**
 * The companies' requests (CONTRACT §4.12), newest first: one company's with its id, filtered by status, route,
 * token and time as a partner filters its own; each links to its detail.
 */
export function Requests({
  filter,
  onFilter,
}: {
  filter: RequestFilter;
  onFilter: (filter: RequestFilter) => void;
}) {
  const paged = usePaged(
    (page) => call<Page<LoggedRequest>>('GET', `/requests${query({ ...filter, page })}`),
    JSON.stringify(filter),
  );
  const [draft, setDraft] = useState<RequestFilter>(filter);
  const set = (key: keyof RequestFilter) => (value: string) => setDraft({ ...draft, [key]: value });
  useTitle(filter.company_id ? `Requests of company ${filter.company_id}` : 'Requests');
  return (
    <main>
      <h1>Requests{filter.company_id && ` of company ${filter.company_id}`}</h1>
      <p class="hint">
        Every request made with a company's token in the last 14 days; a request shows about a second after it
        ended.
      </p>
      <FilterForm
        label="Filter the requests"
        onApply={() => {
          const filled: RequestFilter = {};
          for (const key of REQUEST_FILTER_KEYS) filled[key] = draft[key]?.trim() || undefined;
          onFilter(filled);
        }}
        onClear={() => {
          setDraft({});
          onFilter({});
        }}
      >
        <Field
          label="Company id"
          value={draft.company_id ?? ''}
          onInput={set('company_id')}
          hint="Empty: every company."
        />
        <Field
          label="Status"
          value={draft.status ?? ''}
          onInput={set('status')}
          hint="A code (404) or 4xx, 5xx."
        />
        <Field
          label="Route or path"
          value={draft.route ?? ''}
          onInput={set('route')}
          hint="/api/v2/order/:id, or exactly /api/v2/order/123."
        />
        <Field label="Token id" value={draft.token_id ?? ''} onInput={set('token_id')} />
        <Field
          label="From"
          value={draft.from ?? ''}
          onInput={set('from')}
          hint="YYYY-MM-DD or YYYY-MM-DDTHH:MM, service time zone."
        />
        <Field label="To" value={draft.to ?? ''} onInput={set('to')} hint="Included." />
      </FilterForm>
      <PagedTable
        label="Requests found"
        paged={paged}
        empty="No request matches this filter."
        head={
          <tr>
            <th scope="col">When</th>
            <th scope="col">Request</th>
            <th scope="col">Status</th>
            <th scope="col">Company</th>
            <th scope="col">Who (token)</th>
            <th scope="col">Duration</th>
          </tr>
        }
        row={(request) => (
          <tr key={`${request.request_id}-${request.created_at}`}>
            <td>{when(request.created_at)}</td>
            <td>
              <a href={`#/requests/${encodeURIComponent(request.request_id)}`}>
                {request.method} {request.path}
              </a>
            </td>
            <td>{request.status}</td>
            <td>{request.company_id}</td>
            <td>
              {request.user_name} (token {request.token_id})
            </td>
            <td>{request.duration_ms} ms</td>
          </tr>
        )}
      />
    </main>
  );
}

/** One request by its id: what was asked and answered, and the order, events and deliveries it caused. */
export function RequestScreen({ requestId }: { requestId: string }) {
  const { found, error } = useLoaded<LoggedRequestDetail>(`/requests/${encodeURIComponent(requestId)}`);
  useTitle(`Request ${requestId}`);
  return (
    <main>
      <p>
        <a href={found ? `#/requests?company_id=${found.company_id}` : '#/requests'}>← Requests</a>
      </p>
      <h1>Request {requestId}</h1>
      <ErrorMessage error={error} />
      {!found && !error && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {found && (
        <>
          <section class="card" aria-labelledby="request-summary">
            <h2 id="request-summary">Summary</h2>
            <dl class="facts">
              <dt>When</dt>
              <dd>{when(found.created_at)}</dd>
              <dt>Request</dt>
              <dd>
                {found.method} {found.path} {found.route && <small>({found.route})</small>}
              </dd>
              <dt>Answer</dt>
              <dd>
                {found.status} in {found.duration_ms} ms
              </dd>
              <dt>Company</dt>
              <dd>
                {found.company_id} · <a href={`#/companies/${found.company_id}/tokens`}>tokens</a> ·{' '}
                <a href={`#/requests?company_id=${found.company_id}`}>its requests</a>
              </dd>
              <dt>Who</dt>
              <dd>
                {found.user_name} (token {found.token_id})
              </dd>
              <dt>Idempotency-Key</dt>
              <dd>{found.idempotency_key ?? '—'}</dd>
              <dt>Order</dt>
              <dd>
                {found.order ? (
                  <a href={`#/orders/${found.order.order_id}`}>
                    {found.order.order_ref} ({found.order.state})
                  </a>
                ) : (
                  '—'
                )}
              </dd>
            </dl>
          </section>
          {found.response_body && (
            <section class="card" aria-labelledby="request-answer">
              <h2 id="request-answer">Error body</h2>
              <pre>{JSON.stringify(found.response_body, null, 2)}</pre>
            </section>
          )}
          <section aria-labelledby="request-events">
            <h2 id="request-events">Events it wrote</h2>
            {found.events.length === 0 ? (
              <p class="hint">None.</p>
            ) : (
              <ol class="timeline">
                {found.events.map((event) => (
                  <li key={event.id}>
                    <span class="when">{when(event.created_at)}</span> event <strong>{event.type}</strong>{' '}
                    <code>{event.id}</code>
                    {event.deliveries.length === 0 ? (
                      ' · no webhook endpoint'
                    ) : (
                      <ul class="deliveries">
                        {event.deliveries.map((delivery) => (
                          <li key={delivery.id}>
                            <a href={`#/webhooks/${delivery.endpoint_id}/deliveries/${delivery.id}`}>
                              Delivery {delivery.id}
                            </a>{' '}
                            to endpoint {delivery.endpoint_id}:{' '}
                            <span class={`status status-${delivery.status}`}>{delivery.status}</span>,{' '}
                            {delivery.attempt_count} {delivery.attempt_count === 1 ? 'attempt' : 'attempts'}
                            {delivery.last_status_code !== null &&
                              ` · last answer ${delivery.last_status_code}`}
                          </li>
                        ))}
                      </ul>
                    )}
                  </li>
                ))}
              </ol>
            )}
          </section>
        </>
      )}
    </main>
  );
}
