import { useState } from 'preact/hooks';
import { createGatewayClient } from '../api/client.js';

/**
 * Sign-in with a bearer token (locally the dev token that `./scripts/up.sh` prints). The token
 * is checked by one call of the API before it is kept.
 */
export function SignInPage({ expired, onSignedIn }: { expired: boolean; onSignedIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string | undefined>(expired ? 'Your session has ended; sign in again.' : undefined);
  const [checking, setChecking] = useState(false);

  const signIn = async (): Promise<void> => {
    const candidate = token.trim();
    if (candidate === '') {
      setProblem('Paste an access token.');
      return;
    }
    setChecking(true);
    const client = createGatewayClient({ baseUrl: location.origin, token: () => candidate });
    const { error, response } = await client.GET('/runs', { params: { query: { limit: 1 } } });
    setChecking(false);
    if (error === undefined) onSignedIn(candidate);
    else setProblem(response.status === 401 ? 'The gateway did not accept this token.' : `The gateway answered ${response.status}.`);
  };

  return (
    <main id="main" class="sign-in">
      <h1>Sign in to the OpenPaw console</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void signIn();
        }}
      >
        <label for="token">Access token</label>
        <p id="token-hint" class="hint">
          A bearer token for the gateway. Locally, <code>./scripts/up.sh</code> prints one (the dev token).
        </p>
        <textarea
          id="token"
          name="token"
          rows={4}
          autocomplete="off"
          spellcheck={false}
          aria-describedby={problem === undefined ? 'token-hint' : 'token-hint token-problem'}
          aria-invalid={problem !== undefined}
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        {problem !== undefined && (
          <p id="token-problem" class="error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" disabled={checking}>
          {checking ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
