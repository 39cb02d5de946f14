import { useState } from 'preact/hooks';
import { call, type IssuedToken, type Page, query, type Token } from '../api';
import { companyLabel, FilterForm, SelectField, useCompany } from '../filters';
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

const STATES = [
  ['', 'Any'],
  ['active', 'Active'],
  ['expired', 'Expired'],
  ['revoked', 'Revoked'],
] as const;

/**
 * A company's partner tokens: issue one, read-only or not (its secret shown once), roll one (the new secret shown
 * once, with the time the old one stops working), revoke one after a confirmation. The screen is mounted anew for
 * each company (main.tsx), so nothing of one company's shows under another's.
 */
export function Tokens({ companyId }: { companyId: number }) {
  const { company, error: companyError } = useCompany(companyId);
  const [filter, setFilter] = useState({ user_name: '', state: '' });
  const [userNameFilter, setUserNameFilter] = useState('');
  const [stateFilter, setStateFilter] = useState('');
  const paged = usePaged(
    (page) => call<Page<Token>>('GET', `/tokens${query({ company_id: companyId, ...filter, page })}`),
    `tokens-${companyId}-${filter.user_name}-${filter.state}`,
  );
  const [userName, setUserName] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [issued, setIssued] = useState<{ token: IssuedToken; rolled: boolean } | null>(null);
  const companyName = company ? companyLabel(company) : `company ${companyId}`;
  useTitle(`Tokens of ${companyName}`);
  return (
    <main>
      <p>
        <a href="#/companies">← Companies</a>
      </p>
      <h1>Tokens of {companyName}</h1>
      <ErrorMessage error={companyError} />
      {issued ? (
        <SecretOnce
          title={
            issued.rolled
              ? `New secret of token ${issued.token.id} for ${issued.token.user_name}: the old one works until ${when(issued.token.previous_expires_at)}`
              : `Token ${issued.token.id} for ${issued.token.user_name} of ${companyName}${issued.token.read_only ? ' (read-only)' : ''}`
          }
          secret={issued.token.token}
          onDone={() => setIssued(null)}
        />
      ) : (
        <ActionForm
          label="Issue a partner token"
          submit="Issue token"
          action={async () => {
            const token = await call<IssuedToken>('POST', '/tokens', {
              role: 'partner',
              user_name: userName,
              company_id: companyId,
              ...(expiresAt ? { expires_at: expiresAt } : {}),
              ...(readOnly ? { read_only: true } : {}),
            });
            setIssued({ token, rolled: false });
            setUserName('');
            setExpiresAt('');
            setReadOnly(false);
            paged.reload();
          }}
        >
          <h2>Issue a partner token</h2>
          <div class="row">
            <Field
              label="User name"
              value={userName}
              onInput={setUserName}
              required
              hint="The person it is for."
            />
            <Field
              label="Expires at (optional)"
              placeholder="2027-12-31T23:59"
              value={expiresAt}
              onInput={setExpiresAt}
              hint="YYYY-MM-DDTHH:MM in the service's time zone; empty: never."
            />
          </div>
          <div class="field">
            <label>
              <input
                type="checkbox"
                checked={readOnly}
                onChange={(event) => setReadOnly(event.currentTarget.checked)}
              />{' '}
              Read-only: it lists, reads and exports orders and follows the feed; every write is refused
            </label>
          </div>
        </ActionForm>
      )}
      <FilterForm
        label="Filter the tokens"
        onApply={() => setFilter({ user_name: userNameFilter.trim(), state: stateFilter })}
        onClear={() => {
          setUserNameFilter('');
          setStateFilter('');
          setFilter({ user_name: '', state: '' });
        }}
      >
        <Field
          label="Search users"
          value={userNameFilter}
          onInput={setUserNameFilter}
          hint="A part of the user's name, in any case."
        />
        <SelectField label="State" value={stateFilter} onChange={setStateFilter} options={STATES} />
      </FilterForm>
      <PagedTable
        label="Tokens"
        paged={paged}
        empty={
          filter.user_name || filter.state
            ? 'No token of this company matches this filter.'
            : 'This company has no tokens yet.'
        }
        head={
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Prefix</th>
            <th scope="col">User</th>
            <th scope="col">Access</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">Revoked</th>
            <th scope="col">Rolled</th>
            <th scope="col">Action</th>
          </tr>
        }
        row={(token) => (
          <tr key={token.id}>
            <td>{token.id}</td>
            <td>
              <code>{token.prefix}</code>
            </td>
            <td>{token.user_name}</td>
            <td>{token.read_only ? 'Read-only' : 'Read and write'}</td>
            <td>{when(token.created_at)}</td>
            <td>{when(token.last_used_at)}</td>
            <td>{when(token.expires_at)}</td>
            <td>{when(token.revoked_at)}</td>
            <td>
              {token.rolled_at
                ? `${when(token.rolled_at)}; old secret until ${when(token.previous_expires_at)}`
                : '—'}
            </td>
            <td>
              {token.revoked_at ? (
                'Revoked'
              ) : (
                <div class="actions">
                  <ConfirmButton
                    label={`Roll token ${token.id}`}
                    question={`Give token ${token.id} of ${token.user_name} a new secret? The old one keeps working for 24 hours.`}
                    confirm="Yes, roll"
                    action={async () => {
                      setIssued({
                        token: await call<IssuedToken>('POST', `/tokens/${token.id}/roll`, {}),
                        rolled: true,
                      });
                      paged.reload();
                    }}
                  />
                  <ConfirmButton
                    label={`Revoke token ${token.id}`}
                    question={`Revoke token ${token.id} of ${token.user_name}? It stops working at once.`}
                    confirm="Yes, revoke"
                    action={async () => {
                      await call('DELETE', `/tokens/${token.id}`);
                      paged.reload();
                    }}
                  />
                </div>
              )}
            </td>
          </tr>
        )}
      />
    </main>
  );
}
