import { useState } from 'preact/hooks';

export interface SharedLink {
  readonly url: string;
  readonly expiresAt: string;
}

/**
 * A share link on demand: `create` asks the gateway for a signed, expiring URL (the asset's or the
 * research report's), shown absolute and selectable, with when it stops working.
 */
export function ShareLink({ what, create }: { what: string; create: () => Promise<SharedLink | string> }) {
  const [link, setLink] = useState<SharedLink | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const share = async (): Promise<void> => {
    setBusy(true);
    const outcome = await create();
    setBusy(false);
    if (typeof outcome === 'string') setProblem(outcome);
    else {
      setProblem(undefined);
      setLink({ url: new URL(outcome.url, location.origin).href, expiresAt: outcome.expiresAt });
    }
  };
  return (
    <section aria-labelledby="share-title">
      <h2 id="share-title">Share</h2>
      {link === undefined ? (
        <button type="button" class="secondary" disabled={busy} onClick={() => void share()}>
          Create a share link to {what}
        </button>
      ) : (
        <div class="share-link">
          <label for="share-url">Share link</label>
          <input id="share-url" type="url" readOnly value={link.url} onFocus={(event) => event.currentTarget.select()} />
          <span class="hint">
            Anyone with it can open {what} until <time dateTime={link.expiresAt}>{new Date(link.expiresAt).toLocaleString()}</time>.
          </span>
        </div>
      )}
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
