import { useState } from 'preact/hooks';
import { call, type IssuedToken, type Page, query, type Token } from '../api';
import { ActionForm, ConfirmButton, Field, PagedTable, SecretOnce, usePaged, useTitle, when } from '../ui';

/**
 * A company's partner tokens: issue one (its secret shown once), revoke one after a confirmation. The screen is
 * mounted anew for each company (main.tsx), so nothing of one company's shows under another's.
 */
export function Tokens({ companyId }: { companyId: number }) {
  const paged = usePaged(
    (page) => call<Page<Token>>('GET', `/tokens${query({ company_id: companyId, page })}`),
    `tokens-${companyId}`,
  );
  const [userName, setUserName] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const [issued, setIssued] = useState<IssuedToken | null>(null);
  useTitle(`Tokens of company ${companyId}`);
  return (
    <main>
      <p>
        <a href="#/companies">← Companies</a>
      </p>
      <h1>Tokens of company {companyId}</h1>
      {issued ? (
        <SecretOnce
          title={`Token ${issued.id} for ${issued.user_name} of company ${issued.company_id}`}
          secret={issued.token}
          onDone={() => setIssued(null)}
        />
      ) : (
        <ActionForm
          label="Issue a partner token"
          submit="Issue token"
          action={async () => {
            setIssued(
              await call<IssuedToken>('POST', '/tokens', {
                role: 'partner',
                user_name: userName,
                company_id: companyId,
                ...(expiresAt ? { expires_at: expiresAt } : {}),
              }),
            );
            setUserName('');
            setExpiresAt('');
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
        </ActionForm>
      )}
      <PagedTable
        label="Tokens"
        paged={paged}
        empty="This company has no tokens yet."
        head={
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Prefix</th>
            <th scope="col">User</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">Revoked</th>
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
            <td>{when(token.created_at)}</td>
            <td>{when(token.last_used_at)}</td>
            <td>{when(token.expires_at)}</td>
            <td>{when(token.revoked_at)}</td>
            <td>
              {token.revoked_at ? (
                'Revoked'
              ) : (
                <ConfirmButton
                  label={`Revoke token ${token.id}`}
                  question={`Revoke token ${token.id} of ${token.user_name}? It stops working at once.`}
                  confirm="Yes, revoke"
                  action={async () => {
                    await call('DELETE', `/tokens/${token.id}`);
                    paged.reload();
                  }}
                />
              )}
            </td>
          </tr>
        )}
      />
    </main>
  );
}
