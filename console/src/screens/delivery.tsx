import { useEffect, useState } from 'preact/hooks';
import { type AttemptDetail, call, type DeliveryDetail } from '../api';
import { ErrorMessage, useTitle, when } from '../ui';

/** Headers as a definition list, names as the API gives them (lower case). */
function Headers({ label, headers }: { label: string; headers: Record<string, string> | null }) {
  if (!headers) return <p class="empty">{label}: none recorded.</p>;
  return (
    <>
      <h4>{label}</h4>
      <dl class="headers">
        {Object.entries(headers).map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

function Attempt({ attempt }: { attempt: AttemptDetail }) {
  return (
    <li>
      <section class="card" aria-label={`Attempt ${attempt.number}`}>
        <h3>
          Attempt {attempt.number}:{' '}
          {attempt.status_code === null ? 'no answer' : `HTTP ${attempt.status_code}`}
        </h3>
        <p>
          {when(attempt.attempted_at)} · {attempt.duration_ms} ms{attempt.error && ` · ${attempt.error}`}
        </p>
        <Headers label="Headers sent" headers={attempt.request_headers} />
        <Headers label="Headers received" headers={attempt.response_headers} />
        {attempt.response_body !== null && (
          <>
            <h4>
              Body received
              {attempt.response_body_truncated && ' (the first 4 KiB; the receiver sent more)'}
            </h4>
            <pre tabIndex={0} aria-label={`Body received at attempt ${attempt.number}`}>
              {attempt.response_body || '(empty)'}
            </pre>
          </>
        )}
      </section>
    </li>
  );
}

/**
 * One delivery (`#/webhooks/{endpoint}/deliveries/{delivery}`): the body it sent, every attempt with the
 * headers sent and what the receiver answered, and Retry for a delivery that has not succeeded.
 */
export function DeliveryScreen({ endpointId, deliveryId }: { endpointId: string; deliveryId: string }) {
  const [delivery, setDelivery] = useState<DeliveryDetail | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [retryError, setRetryError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const path = `/webhooks/${endpointId}/deliveries/${deliveryId}`;
  useTitle(`Delivery ${deliveryId} of endpoint ${endpointId}`);
  useEffect(() => {
    call<DeliveryDetail>('GET', path).then(setDelivery, setError);
  }, [path]);
  return (
    <main>
      <p>
        {delivery ? (
          <a href={`#/companies/${delivery.company_id}/webhooks`}>
            ← Webhooks of company {delivery.company_id}
          </a>
        ) : (
          <a href="#/companies">← Companies</a>
        )}{' '}
        · <a href={`#/webhooks/${endpointId}`}>Settings of endpoint {endpointId}</a>
      </p>
      <h1>
        Delivery {deliveryId} of endpoint {endpointId}
      </h1>
      <ErrorMessage error={error} />
      {!delivery && !error && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {delivery && (
        <>
          <dl class="summary">
            <div>
              <dt>Event</dt>
              <dd>
                <code>{delivery.event_id}</code> {delivery.event_type}
              </dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>
                <span class={`status status-${delivery.status}`}>{delivery.status}</span>
                {delivery.next_attempt_at && ` · next try ${when(delivery.next_attempt_at)}`}
              </dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{when(delivery.created_at)}</dd>
            </div>
            <div>
              <dt>Delivered</dt>
              <dd>{when(delivery.delivered_at)}</dd>
            </div>
          </dl>
          {delivery.status !== 'succeeded' && (
            <p>
              <button
                type="button"
                disabled={busy}
                onClick={() => {
                  setBusy(true);
                  setRetryError(null);
                  call<DeliveryDetail>('POST', `${path}/retry`)
                    .then(setDelivery, setRetryError)
                    .finally(() => setBusy(false));
                }}
              >
                {busy ? 'Sending…' : 'Retry now'}
              </button>
            </p>
          )}
          <ErrorMessage error={retryError} />
          <h2>Body sent</h2>
          <pre tabIndex={0} aria-label="Body sent">
            {delivery.request_body ?? 'Not recorded (no attempt yet, or sent before bodies were kept).'}
          </pre>
          <h2>Attempts, oldest first</h2>
          {delivery.attempts.length === 0 ? (
            <p class="empty">No attempt yet.</p>
          ) : (
            <ol class="attempt-list">
              {delivery.attempts.map((attempt) => (
                <Attempt key={attempt.number} attempt={attempt} />
              ))}
            </ol>
          )}
        </>
      )}
    </main>
  );
}
