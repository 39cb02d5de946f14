import { useState } from 'preact/hooks';
import { ApiError, call, type Page, type Company, session } from '../api';
import { ActionForm, Field, useTitle } from '../ui';

/** What the console adds to the API's refusal of a token, by status. */
const ADVICE: Record<number, string> = {
  401: 'This token was refused: it is wrong, revoked or expired.',
  403: 'This token is not an admin token: the console needs one.',
};

/**
 * Sign in by pasting an admin token. The token is tried on the admin API before it is kept (in sessionStorage
 * only); a token the API refuses is not kept, and the API's message is shown with the console's advice.
 */
export function SignIn(props: { notice: string | null; onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  useTitle('Sign in');
  return (
    <main class="sign-in">
      <h1>Admin console</h1>
      <p>Sign in with an admin token (issued with `npm run -s cli -- tokens:create --role admin`).</p>
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
            if (error instanceof ApiError) error.advice = ADVICE[error.status] ?? null;
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
