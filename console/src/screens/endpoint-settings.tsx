import { useEffect, useState } from 'preact/hooks';
import { call, EVENT_TYPES, type RotatedWebhook, type Webhook } from '../api';
import { ActionForm, ErrorMessage, Field, SecretOnce, useTitle, when } from '../ui';

/**
 * One endpoint's settings (`#/webhooks/{id}`): the event types it receives, disable and enable, and a secret
 * rotation with an overlap, the new secret shown once. A deleted endpoint is the API's 404, shown as it comes.
 */
export function EndpointSettings({ endpointId }: { endpointId: number }) {
  const [endpoint, setEndpoint] = useState<Webhook | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [rotated, setRotated] = useState<RotatedWebhook | null>(null);
  useTitle(`Settings of webhook endpoint ${endpointId}`);
  useEffect(() => {
    call<Webhook>('GET', `/webhooks/${endpointId}`).then(setEndpoint, setError);
  }, [endpointId]);
  return (
    <main>
      <p>
        {endpoint ? (
          <a href={`#/companies/${endpoint.company_id}/webhooks`}>
            ← Webhooks of company {endpoint.company_id}
          </a>
        ) : (
          <a href="#/companies">← Companies</a>
        )}
      </p>
      <h1>Settings of webhook endpoint {endpointId}</h1>
      <ErrorMessage error={error} />
      {!endpoint && !error && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {endpoint && (
        <>
          <dl class="facts">
            <dt>URL</dt>
            <dd>{endpoint.url}</dd>
            <dt>Status</dt>
            <dd>{statusOf(endpoint)}</dd>
            <dt>Previous secret signs until</dt>
            <dd>
              {endpoint.previous_secret_expires_at ? when(endpoint.previous_secret_expires_at) : 'no overlap'}
            </dd>
          </dl>
          <EventTypesForm endpoint={endpoint} saved={setEndpoint} />
          <EnableForm endpoint={endpoint} saved={setEndpoint} />
          {rotated ? (
            <SecretOnce
              title={`New signing secret of endpoint ${rotated.id}`}
              secret={rotated.secret}
              onDone={() => setRotated(null)}
            />
          ) : (
            <RotateForm
              endpoint={endpoint}
              rotated={(next) => {
                setEndpoint(next);
                setRotated(next);
              }}
            />
          )}
        </>
      )}
    </main>
  );
}

function statusOf(endpoint: Webhook): string {
  if (!endpoint.active) return `Stopped${endpoint.disabled_reason ? `: ${endpoint.disabled_reason}` : ''}`;
  return endpoint.enabled
    ? 'Enabled'
    : `Disabled since ${when(endpoint.disabled_at)}: deliveries wait, paused`;
}

/** Every type, or only the checked ones. */
function EventTypesForm(props: { endpoint: Webhook; saved: (endpoint: Webhook) => void }) {
  const [all, setAll] = useState(props.endpoint.event_types === null);
  const [chosen, setChosen] = useState<string[]>(props.endpoint.event_types ?? []);
  const [done, setDone] = useState<string | null>(null);
  const toggle = (type: string, checked: boolean) =>
    setChosen((current) => (checked ? [...current, type] : current.filter((entry) => entry !== type)));
  return (
    <ActionForm
      label="Event types"
      submit="Save event types"
      action={async () => {
        setDone(null);
        const event_types = all ? null : EVENT_TYPES.filter((type) => chosen.includes(type));
        props.saved(await call<Webhook>('PATCH', `/webhooks/${props.endpoint.id}`, { event_types }));
        setDone('Event types saved.');
      }}
    >
      <h2>Event types</h2>
      <fieldset>
        <legend>Which events are sent to this endpoint</legend>
        <label class="choice">
          <input type="radio" name="event-types" checked={all} onChange={() => setAll(true)} /> Every event
          type, those added later too
        </label>
        <label class="choice">
          <input type="radio" name="event-types" checked={!all} onChange={() => setAll(false)} /> Only the
          types checked below
        </label>
        {EVENT_TYPES.map((type) => (
          <label class="choice" key={type}>
            <input
              type="checkbox"
              disabled={all}
              checked={chosen.includes(type)}
              onChange={(event) => toggle(type, event.currentTarget.checked)}
            />{' '}
            <code>{type}</code>
          </label>
        ))}
      </fieldset>
      <p role="status">{done}</p>
    </ActionForm>
  );
}

function EnableForm(props: { endpoint: Webhook; saved: (endpoint: Webhook) => void }) {
  const { endpoint } = props;
  return (
    <ActionForm
      label={endpoint.enabled ? 'Disable the endpoint' : 'Enable the endpoint'}
      submit={endpoint.enabled ? 'Disable endpoint' : 'Enable endpoint'}
      action={async () => {
        props.saved(await call<Webhook>('PATCH', `/webhooks/${endpoint.id}`, { enabled: !endpoint.enabled }));
      }}
    >
      <h2>{endpoint.enabled ? 'Disable the endpoint' : 'Enable the endpoint'}</h2>
      <p class="hint">
        {endpoint.enabled
          ? 'A disabled endpoint is sent nothing: its deliveries wait, paused, until it is enabled again.'
          : 'Enabled again, its paused deliveries are sent at once; those older than 24 hours are given up.'}
      </p>
    </ActionForm>
  );
}

function RotateForm(props: { endpoint: Webhook; rotated: (endpoint: RotatedWebhook) => void }) {
  const [until, setUntil] = useState('');
  return (
    <ActionForm
      label="Rotate the secret"
      submit="Rotate secret"
      action={async () => {
        const body = until ? { previous_secret_expires_at: until } : {};
        props.rotated(
          await call<RotatedWebhook>('POST', `/webhooks/${props.endpoint.id}/rotate-secret`, body),
        );
        setUntil('');
      }}
    >
      <h2>Rotate the secret</h2>
      <p class="hint">
        A new secret is generated and shown once. Until the time below, every delivery is signed with the old
        secret too, so the receiver can switch without missing one.
      </p>
      <Field
        label="Old secret signs until (optional)"
        value={until}
        onInput={setUntil}
        placeholder="YYYY-MM-DDTHH:MM"
        hint="At most 7 days ahead; 24 hours from now when left empty; now ends the old secret at once."
      />
    </ActionForm>
  );
}
