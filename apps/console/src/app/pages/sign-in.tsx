import { useEffect, useState } from 'preact/hooks';
import { createGatewayClient } from '../api/client.js';
import { finishOidcSignIn, isOidcRedirect, type OidcSignInConfig, startOidcSignIn } from '../oidc.js';
import { storeRolesClaim } from '../session.js';

/**
 * Sign-in with the deployment's identity provider (OIDC, authorization code + PKCE) where the gateway
 * has one configured, or with a bearer token (locally the dev token that `./scripts/up.sh` prints),
 * checked by one call of the API before it is kept.
 */
export function SignInPage({ expired, onSignedIn }: { expired: boolean; onSignedIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string | undefined>(expired ? 'Your session has ended; sign in again.' : undefined);
  const [checking, setChecking] = useState(false);
  const [oidc, setOidc] = useState<(OidcSignInConfig & { readonly issuer: string }) | undefined>();
  const [finishing, setFinishing] = useState(isOidcRedirect);

  useEffect(() => {
    const client = createGatewayClient({ baseUrl: location.origin, token: () => undefined });
    if (isOidcRedirect()) {
      void finishOidcSignIn(client).then((outcome) => {
        setFinishing(false);
        if ('token' in outcome) {
          storeRolesClaim(outcome.rolesClaim);
          onSignedIn(outcome.token);
        }
        else setProblem(outcome.problem);
      });
    }
    // `configured: false` where no provider is configured: the token form alone.
    void client.GET('/auth/oidc').then(({ data }) => setOidc(data?.configured === true ? data : undefined));
  }, []);

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
      {finishing && <p role="status">Signing you in…</p>}
      {oidc !== undefined && (
        <section aria-labelledby="oidc-title">
          <h2 id="oidc-title">With your organisation’s account</h2>
          <p class="hint">
            At <code>{oidc.issuer}</code>.
          </p>
          <button type="button" disabled={finishing} onClick={() => void startOidcSignIn(oidc)}>
            Sign in with your identity provider
          </button>
          <h2>Or with an access token</h2>
        </section>
      )}
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
