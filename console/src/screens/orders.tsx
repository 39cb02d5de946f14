import { useId, useState } from 'preact/hooks';
import {
  type AdminOrder,
  type AdminOrderListItem,
  call,
  type Page,
  query,
  type TimelineDelivery,
  type TimelineEntry,
} from '../api';
import { ErrorMessage, Field, PagedTable, useLoaded, usePaged, useTitle, when } from '../ui';

export const ORDER_FILTER_KEYS = ['order', 'company_id', 'state', 'created_from', 'created_to'] as const;

/**
 * The order lookup's filters, as the page's address keeps them (`#/orders?order=SK-0000123&state=PLACED`);
 * `order` is an order id (digits) or a reference (`SK-0000123`): the API has a parameter for each.
 */
export type OrderFilter = Partial<Record<(typeof ORDER_FILTER_KEYS)[number], string>>;

const STATES = ['PLACED', 'TEST', 'SENT_TO_LOGISTICS', 'DISPATCHED', 'DELIVERED', 'COMPLETED', 'CANCELLED'];

/** The API's parameters for the filter: digits are an order id, anything else a reference. */
function apiFilter({ order, ...rest }: OrderFilter): Record<string, string | undefined> {
  const given = order?.trim();
  if (!given) return rest;
  return /^\d+$/.test(given) ? { ...rest, order_id: given } : { ...rest, order_ref: given };
}

/** Finds orders across companies by id or reference, company, state and created range. */
export function Orders({
  filter,
  onFilter,
}: {
  filter: OrderFilter;
  onFilter: (filter: OrderFilter) => void;
}) {
  const paged = usePaged(
    (page) => call<Page<AdminOrderListItem>>('GET', `/orders${query({ ...apiFilter(filter), page })}`),
    JSON.stringify(filter),
  );
  const [draft, setDraft] = useState<OrderFilter>(filter);
  const set = (key: keyof OrderFilter) => (value: string) => setDraft({ ...draft, [key]: value });
  const stateId = useId();
  useTitle('Orders');
  return (
    <main>
      <h1>Orders</h1>
      <form
        class="card"
        aria-label="Find orders"
        onSubmit={(event) => {
          event.preventDefault();
          const filled: OrderFilter = {};
          for (const key of ORDER_FILTER_KEYS) filled[key] = draft[key]?.trim() || undefined;
          onFilter(filled);
        }}
      >
        <div class="row">
          <Field
            label="Order id or reference"
            value={draft.order ?? ''}
            onInput={set('order')}
            hint="123 or SK-0000123, as the partner reads it out."
          />
          <Field
            label="Company id"
            value={draft.company_id ?? ''}
            onInput={set('company_id')}
            hint="Empty: every company."
          />
          <div class="field">
            <label for={stateId}>State</label>
            <select
              id={stateId}
              value={draft.state ?? ''}
              onChange={(event) => set('state')(event.currentTarget.value)}
            >
              <option value="">Any state</option>
              {STATES.map((state) => (
                <option key={state} value={state}>
                  {state}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div class="row">
          <Field
            label="Created from"
            value={draft.created_from ?? ''}
            onInput={set('created_from')}
            hint="YYYY-MM-DD or YYYY-MM-DDTHH:MM, service time zone."
          />
          <Field
            label="Created to"
            value={draft.created_to ?? ''}
            onInput={set('created_to')}
            hint="Included."
          />
        </div>
        <button type="submit">Find orders</button>
      </form>
      <PagedTable
        label="Orders found"
        paged={paged}
        empty="No order matches this filter."
        head={
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Company</th>
            <th scope="col">State</th>
            <th scope="col">Customer</th>
            <th scope="col">Created</th>
          </tr>
        }
        row={({ order, company }) => (
          <tr key={order.order_id}>
            <td>
              <a href={`#/orders/${order.order_id}`}>{order.order_ref}</a>
            </td>
            <td>
              {company.name} <small>(id {company.id})</small>
            </td>
            <td>{order.state}</td>
            <td>
              {order.first_name} {order.last_name}
            </td>
            <td>{when(order.created_at)}</td>
          </tr>
        )}
      />
    </main>
  );
}

/** One order: its company, what it is now, and its timeline with each event's deliveries. */
export function OrderScreen({ orderId }: { orderId: number }) {
  const { found, error } = useLoaded<AdminOrder>(`/orders/${orderId}`);
  useTitle(found ? `Order ${found.order.order_ref}` : `Order ${orderId}`);
  const { order, company } = found ?? {};
  return (
    <main>
      <p>
        <a href="#/orders">← Orders</a>
      </p>
      <h1>{order ? `Order ${order.order_ref}` : `Order ${orderId}`}</h1>
      <ErrorMessage error={error} />
      {!found && !error && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {found && order && company && (
        <>
          <section class="card" aria-labelledby="order-summary">
            <h2 id="order-summary">Summary</h2>
            <dl class="facts">
              <dt>Company</dt>
              <dd>
                {company.name} ({company.site}, id {company.id}) ·{' '}
                <a href={`#/companies/${company.id}/tokens`}>tokens</a> ·{' '}
                <a href={`#/companies/${company.id}/webhooks`}>webhooks</a>
              </dd>
              <dt>State</dt>
              <dd>
                {order.state}
                {order.test && ' (test order)'}
              </dd>
              <dt>Type</dt>
              <dd>{order.order_type}</dd>
              <dt>Customer</dt>
              <dd>
                {order.first_name} {order.last_name}, {order.consignee}, {order.city} · {order.email}
              </dd>
              <dt>Created</dt>
              <dd>{when(order.created_at)}</dd>
              <dt>Last changed</dt>
              <dd>{when(order.updated_at)}</dd>
            </dl>
          </section>
          <section aria-labelledby="order-timeline">
            <h2 id="order-timeline">Timeline</h2>
            <p class="hint">
              Oldest first: each change with who made it, and each event with its webhook deliveries.
              {found.timeline_truncated &&
                ' Only the newest 100 changes and 100 events are shown (10 deliveries each): older ones are left out.'}
            </p>
            <ol class="timeline">
              {found.timeline.map((entry) => (
                <TimelineItem
                  key={`${entry.kind}-${entry.audit?.id ?? entry.event?.id}`}
                  entry={entry}
                  companyId={company.id}
                />
              ))}
            </ol>
          </section>
        </>
      )}
    </main>
  );
}

function TimelineItem({ entry, companyId }: { entry: TimelineEntry; companyId: number }) {
  const { audit, event } = entry;
  if (audit) {
    return (
      <li>
        <span class="when">{when(entry.at)}</span> <strong>{audit.action}</strong> by {audit.user_name}{' '}
        {audit.token_id === null ? (
          '(CLI)'
        ) : (
          <>
            (
            {audit.token_role === 'partner' ? (
              <a href={`#/companies/${companyId}/tokens`}>token {audit.token_id}</a>
            ) : (
              `token ${audit.token_id}`
            )}
            , {audit.token_role ?? 'unknown role'},{' '}
            <a href={`#/audit?token_id=${audit.token_id}`}>its changes</a>)
          </>
        )}
        {audit.changed_fields.length > 0 && <>: {audit.changed_fields.join(', ')}</>}
      </li>
    );
  }
  return (
    <li>
      <span class="when">{when(entry.at)}</span> event <strong>{event!.type}</strong> <code>{event!.id}</code>
      {event!.deliveries.length === 0 ? (
        ' · no webhook endpoint'
      ) : (
        <ul class="deliveries">
          {event!.deliveries.map((delivery) => (
            <DeliveryItem key={delivery.id} delivery={delivery} />
          ))}
        </ul>
      )}
    </li>
  );
}

function DeliveryItem({ delivery }: { delivery: TimelineDelivery }) {
  const last = delivery.last_attempt;
  return (
    <li>
      <a href={`#/webhooks/${delivery.endpoint_id}/deliveries/${delivery.id}`}>Delivery {delivery.id}</a> to{' '}
      <span class="url">{delivery.endpoint_url}</span>:{' '}
      <span class={`status status-${delivery.status}`}>{delivery.status}</span>, {delivery.attempt_count}{' '}
      {delivery.attempt_count === 1 ? 'attempt' : 'attempts'}
      {last &&
        ` · last ${when(last.attempted_at)}: ${last.status_code ?? 'no answer'}${last.error ? ` (${last.error})` : ''}`}
    </li>
  );
}
