import { useState } from 'preact/hooks';
import { ApiError, call, type Page, type Company, session } from '../api';
import { ActionForm, Field } from '../ui';

/**
 * Sign in by pasting an admin token. The token is tried on the admin API before it is kept (in sessionStorage
 * only); a token the API refuses is told so and not kept.
 */
export function SignIn(props: { notice: string | null; onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  return (
    <main class="sign-in">
      <h1>Admin console</h1>
      <p>Sign in with an admin token (issued with `npm run cli -- tokens:create --role admin`).</p>
      {props.notice && (
        <p class="notice" role="alert">
          {props.notice}
        </p>
      )}
      <ActionForm
        label="Sign in"
        submit="Sign in"
        action={async () => {
          const candidate = token.trim();
          try {
            await call<Page<Company>>('GET', '/companies?per_page=1', undefined, candidate);
          } catch (error) {
            if (error instanceof ApiError && error.status === 401) {
              throw new ApiError(401, 'This token was refused: it is wrong, revoked or expired.');
            }
            if (error instanceof ApiError && error.status === 403) {
              throw new ApiError(403, 'This token is not an admin token: the console needs one.');
            }
            throw error;
          }
          session.signIn(candidate);
          setToken('');
          props.onSignedIn();
        }}
      >
        <Field
          label="Admin token"
          secret
          value={token}
          onInput={setToken}
          required
          hint="Kept in this browser tab only, until you sign out or close it."
        />
      </ActionForm>
    </main>
  );
}
