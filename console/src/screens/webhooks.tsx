import { useId, useState } from 'preact/hooks';
import { call, type CreatedWebhook, type Delivery, type Page, query, type Webhook } from '../api';
import { companyLabel, FilterForm, useCompany } from '../filters';
import {
  ActionForm,
  ConfirmButton,
  ErrorMessage,
  Field,
  PagedTable,
  SecretOnce,
  usePaged,
  useTitle,
  when,
} from '../ui';

/**
 * A company's webhook endpoints: register (secret shown once), delete, and each one's delivery log. The screen
 * is mounted anew for each company (main.tsx), so nothing of one company's shows under another's.
 */
export function Webhooks({ companyId }: { companyId: number }) {
  const { company, error: companyError } = useCompany(companyId);
  const [urlFilter, setUrlFilter] = useState('');
  const [filter, setFilter] = useState('');
  const paged = usePaged(
    (page) => call<Page<Webhook>>('GET', `/webhooks${query({ company_id: companyId, url: filter, page })}`),
    `webhooks-${companyId}-${filter}`,
  );
  const [url, setUrl] = useState('');
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [logOf, setLogOf] = useState<Webhook | null>(null);
  const companyName = company ? companyLabel(company) : `company ${companyId}`;
  useTitle(`Webhooks of ${companyName}`);
  return (
    <main>
      <p>
        <a href="#/companies">← Companies</a>
      </p>
      <h1>Webhooks of {companyName}</h1>
      <ErrorMessage error={companyError} />
      {created ? (
        <SecretOnce
          title={`Signing secret of endpoint ${created.id} of ${companyName}`}
          secret={created.secret}
          onDone={() => setCreated(null)}
        />
      ) : (
        <ActionForm
          label="Register an endpoint"
          submit="Register endpoint"
          action={async () => {
            setCreated(await call<CreatedWebhook>('POST', '/webhooks', { company_id: companyId, url }));
            setUrl('');
            paged.reload();
          }}
        >
          <h2>Register an endpoint</h2>
          <Field
            label="Endpoint URL"
            value={url}
            onInput={setUrl}
            required
            hint="Where the company's order events are POSTed, signed (Standard Webhooks)."
          />
        </ActionForm>
      )}
      <FilterForm
        label="Filter the endpoints"
        onApply={() => setFilter(urlFilter.trim())}
        onClear={() => {
          setUrlFilter('');
          setFilter('');
        }}
      >
        <Field
          label="Search endpoints"
          value={urlFilter}
          onInput={setUrlFilter}
          hint="A part of the URL, in any case."
        />
      </FilterForm>
      <PagedTable
        label="Endpoints"
        paged={paged}
        empty={
          filter
            ? 'No endpoint of this company matches this filter.'
            : 'This company has no webhook endpoints.'
        }
        head={
          <tr>
            <th scope="col">Id</th>
            <th scope="col">URL</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Action</th>
          </tr>
        }
        row={(endpoint) => (
          <tr key={endpoint.id}>
            <td>{endpoint.id}</td>
            <td class="url">{endpoint.url}</td>
            <td>
              {endpoint.active
                ? endpoint.enabled
                  ? 'Active'
                  : 'Disabled'
                : `Stopped${endpoint.disabled_reason ? `: ${endpoint.disabled_reason}` : ''}`}
            </td>
            <td>{when(endpoint.created_at)}</td>
            <td class="links">
              <a href={`#/webhooks/${endpoint.id}`} aria-label={`Settings of endpoint ${endpoint.id}`}>
                Settings
              </a>
              <button
                type="button"
                aria-label={`Delivery log of endpoint ${endpoint.id}`}
                onClick={() => setLogOf(endpoint)}
              >
                Delivery log
              </button>
              <ConfirmButton
                label={`Delete endpoint ${endpoint.id}`}
                question={`Delete endpoint ${endpoint.id}? Nothing more is sent to it; waiting deliveries are cancelled.`}
                confirm="Yes, delete"
                action={async () => {
                  await call('DELETE', `/webhooks/${endpoint.id}`);
                  if (logOf?.id === endpoint.id) setLogOf(null);
                  paged.reload();
                }}
              />
            </td>
          </tr>
        )}
      />
      {logOf && <DeliveryLog key={logOf.id} endpoint={logOf} />}
    </main>
  );
}

/** The statuses and event types the delivery log filters by (CONTRACT §5, §6). */
const STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'];
const EVENT_TYPES = [
  'order.placed',
  'order.updated',
  'order.comment',
  'order.state_changed',
  'order.tracking',
  'order.detailed_status',
  'order.delivery_error',
  'import.completed',
  'import.failed',
];

interface DeliveryFilter {
  status?: string;
  event_type?: string;
  event_id?: string;
}

function Choice(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: string[];
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(event) => props.onChange(event.currentTarget.value)}>
        <option value="">Any</option>
        {props.options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </div>
  );
}

function DeliveryLog({ endpoint }: { endpoint: Webhook }) {
  const [filter, setFilter] = useState<DeliveryFilter>({});
  const [status, setStatus] = useState('');
  const [eventType, setEventType] = useState('');
  const [eventId, setEventId] = useState('');
  const paged = usePaged(
    (page) => call<Page<Delivery>>('GET', `/webhooks/${endpoint.id}/deliveries${query({ ...filter, page })}`),
    `deliveries-${endpoint.id}-${JSON.stringify(filter)}`,
  );
  return (
    <section aria-labelledby="delivery-log">
      <h2 id="delivery-log">Delivery log of endpoint {endpoint.id}</h2>
      <p class="hint">
        Newest first. A failed delivery was given up after 24 hours of retries (or the endpoint answered 410).
        Retry sends a delivery that has not succeeded again now, with the same webhook-id and a fresh
        signature, unless an attempt of it is on its way; a stopped endpoint receives nothing. Details shows
        what each attempt sent and what the receiver answered.
      </p>
      <form
        class="card"
        aria-label="Filter the delivery log"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter({
            status: status || undefined,
            event_type: eventType || undefined,
            event_id: eventId.trim() || undefined,
          });
        }}
      >
        <div class="row">
          <Choice label="Status" value={status} onChange={setStatus} options={STATUSES} />
          <Choice label="Event type" value={eventType} onChange={setEventType} options={EVENT_TYPES} />
          <Field
            label="Event id"
            value={eventId}
            onInput={setEventId}
            placeholder="evt_1042"
            hint="The webhook-id the receiver saw. Empty: every event."
          />
        </div>
        <button type="submit">Apply filter</button>
      </form>
      <button type="button" onClick={paged.reload}>
        Refresh the log
      </button>
      <PagedTable
        label="Deliveries"
        paged={paged}
        empty="No delivery of this endpoint matches."
        head={
          <tr>
            <th scope="col">Delivery</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts (time, answer, duration, error)</th>
            <th scope="col">Action</th>
          </tr>
        }
        row={(delivery) => (
          <DeliveryRow key={delivery.id} endpoint={endpoint} delivery={delivery} changed={paged.reload} />
        )}
      />
    </section>
  );
}

/** Retry is offered exactly where the API accepts it: a delivery that has not succeeded, of an active endpoint. */
function DeliveryRow(props: { endpoint: Webhook; delivery: Delivery; changed: () => void }) {
  const { delivery } = props;
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <tr>
      <td>
        <a
          href={`#/webhooks/${props.endpoint.id}/deliveries/${delivery.id}`}
          aria-label={`Details of delivery ${delivery.id}`}
        >
          {delivery.id}: details
        </a>
      </td>
      <td>
        <code>{delivery.event_id}</code> {delivery.event_type}
        <br />
        <small>created {when(delivery.created_at)}</small>
      </td>
      <td>
        <span class={`status status-${delivery.status}`}>{delivery.status}</span>
        {delivery.next_attempt_at && <small> next try {when(delivery.next_attempt_at)}</small>}
      </td>
      <td>
        <ol class="attempts">
          {delivery.attempts.map((attempt, index) => (
            <li key={index}>
              {when(attempt.attempted_at)} · {attempt.status_code ?? 'no answer'} · {attempt.duration_ms} ms
              {attempt.error && ` · ${attempt.error}`}
            </li>
          ))}
        </ol>
      </td>
      <td>
        {delivery.status !== 'succeeded' && props.endpoint.active && (
          <button
            type="button"
            disabled={busy}
            aria-label={`Retry delivery ${delivery.id}`}
            onClick={() => {
              setBusy(true);
              setError(null);
              call('POST', `/webhooks/${props.endpoint.id}/deliveries/${delivery.id}/retry`)
                .then(props.changed, setError)
                .finally(() => setBusy(false));
            }}
          >
            {busy ? 'Sending…' : 'Retry'}
          </button>
        )}
        <ErrorMessage error={error} />
      </td>
    </tr>
  );
}
