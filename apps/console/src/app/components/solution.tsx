import { useEffect, useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { errorMessage } from '../api/resources.js';

/** How often to ask again while the gateway's asset projection has not caught up with the run (`solution_pending`). */
const PENDING_RETRIES = 10;
const PENDING_DELAY_MS = 1000;

/**
 * The solution HTML (MathML) of a run, in a frame that may run nothing: `sandbox` without
 * `allow-scripts` gives it an opaque origin, no script, no form, no navigation of the console.
 */
export function Solution({ runId }: { runId: string }) {
  const client = useGatewayClient();
  const [html, setHtml] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();

  useEffect(() => {
    const abort = new AbortController();
    void (async () => {
      for (let attempt = 0; attempt <= PENDING_RETRIES && !abort.signal.aborted; attempt++) {
        const { data, error, response } = await client.GET('/runs/{id}/solution', { params: { path: { id: runId } }, parseAs: 'text', signal: abort.signal });
        if (data !== undefined) {
          setHtml(data);
          return;
        }
        const pending = response.status === 404 && (error as { error?: string } | undefined)?.error === 'solution_pending';
        if (!pending) {
          setProblem(errorMessage(error, 'The solution could not be read.'));
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, PENDING_DELAY_MS));
      }
      setProblem('The solution is not available yet; reload the page in a moment.');
    })().catch(() => undefined);
    return () => abort.abort();
  }, [client, runId]);

  return (
    <section aria-labelledby="solution-title">
      <h2 id="solution-title">Solution</h2>
      {problem !== undefined && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {html === undefined && problem === undefined && <p role="status">Loading the solution…</p>}
      {html !== undefined && <iframe class="solution" title="Solution" sandbox="" srcdoc={html} />}
    </section>
  );
}
