import { useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage } from '../api/resources.js';
import { hrefOf } from '../routes.js';

/** Spec 03: ask for an evidence-verified visual chain between two persons; its page streams the chain as it grows. */
export function VisualDegreesPage() {
  const client = useGatewayClient();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [maxHops, setMaxHops] = useState('6');
  const [problem, setProblem] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const start = async (): Promise<void> => {
    setBusy(true);
    setProblem(undefined);
    const { data, error, response } = await client.POST('/visual-degrees', { body: { from: from.trim(), to: to.trim(), options: { maxHops: Number(maxHops) } } });
    setBusy(false);
    if (data !== undefined) location.hash = hrefOf({ page: 'visualDegreesRun', runId: data.runId });
    else setProblem(errorMessage(error, `The gateway answered ${response.status}.`));
  };

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Visual degrees</h1>
      <p class="hint">A chain of photos linking two persons: every link is an image where both are recognised at 80 % or more.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <label for="degrees-from">From (a person's name)</label>
        <input id="degrees-from" class="wide" required value={from} onInput={(event) => setFrom(event.currentTarget.value)} />
        <label for="degrees-to">To (a person's name)</label>
        <input id="degrees-to" class="wide" required value={to} onInput={(event) => setTo(event.currentTarget.value)} />
        <label for="degrees-hops">At most this many links (1–6)</label>
        <input id="degrees-hops" type="number" min={1} max={6} value={maxHops} onInput={(event) => setMaxHops(event.currentTarget.value)} />
        <div>
          <button type="submit" disabled={busy || from.trim() === '' || to.trim() === ''}>
            Find the chain
          </button>
        </div>
      </form>
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
