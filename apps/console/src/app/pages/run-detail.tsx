import { useEffect, useState } from 'preact/hooks';
import type { GatewayClient } from '../api/client.js';
import { useGatewayClient } from '../api/context.js';
import { followRun } from '../api/follow-run.js';
import { errorMessage, type Run, type RunTransition } from '../api/resources.js';
import { Progress } from '../components/progress.js';
import { Solution } from '../components/solution.js';
import { StateBadge } from '../components/state-badge.js';
import { Timeline } from '../components/timeline.js';
import { hrefOf } from '../routes.js';
import { workflowTitle } from '../workflows.js';

/** How long to wait for a just-submitted run to reach the gateway's projection (it lags the submission by a moment). */
const NOT_YET_PROJECTED_RETRIES = 20;
const NOT_YET_PROJECTED_DELAY_MS = 500;

async function readRun(client: GatewayClient, runId: string, signal: AbortSignal): Promise<{ run?: Run; problem: string }> {
  for (let attempt = 0; ; attempt++) {
    const { data, error, response } = await client.GET('/runs/{id}', { params: { path: { id: runId } }, signal });
    if (data !== undefined) return { run: data, problem: '' };
    if (response.status !== 404 || attempt >= NOT_YET_PROJECTED_RETRIES) return { problem: errorMessage(error, 'The run could not be read.') };
    await new Promise((resolve) => setTimeout(resolve, NOT_YET_PROJECTED_DELAY_MS));
  }
}

/**
 * One run: its state live (server-sent events until it ends), its progress on the workflow's main
 * path, the solution once there is one, and its timeline of state changes.
 */
export function RunDetailPage({ runId }: { runId: string }) {
  const client = useGatewayClient();
  const [run, setRun] = useState<Run | undefined>();
  const [transitions, setTransitions] = useState<RunTransition[]>([]);
  const [problem, setProblem] = useState<string | undefined>();
  const [cancelOutcome, setCancelOutcome] = useState<string | undefined>();

  useEffect(() => {
    const abort = new AbortController();
    setRun(undefined);
    void (async () => {
      const first = await readRun(client, runId, abort.signal);
      if (first.run === undefined) {
        setProblem(first.problem);
        return;
      }
      setRun(first.run);
      if (!first.run.terminal) await followRun(client, runId, setRun, abort.signal);
    })().catch((error: unknown) => {
      if (!abort.signal.aborted) setProblem(error instanceof Error ? error.message : 'The run could not be followed.');
    });
    return () => abort.abort();
  }, [client, runId]);

  // The timeline is re-read at every new state the page sees.
  useEffect(() => {
    if (run === undefined) return;
    const abort = new AbortController();
    void client.GET('/runs/{id}/transitions', { params: { path: { id: runId } }, signal: abort.signal }).then(({ data }) => {
      if (data !== undefined) setTransitions(data.items);
    });
    return () => abort.abort();
  }, [client, runId, run?.version]);

  const cancel = async (): Promise<void> => {
    const { data, error } = await client.POST('/runs/{id}/cancel', { params: { path: { id: runId } }, body: { reason: 'cancelled from the console' } });
    setCancelOutcome(data !== undefined ? `Cancel ${data.status} (state ${data.state}).` : `Cancel refused: ${errorMessage(error, 'the gateway refused it')}.`);
  };

  if (problem !== undefined) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Run</h1>
        <p class="error" role="alert">
          {problem}
        </p>
        <p>
          <a href={hrefOf({ page: 'runs' })}>Back to your runs</a>
        </p>
      </section>
    );
  }
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">
        {run === undefined ? 'Run' : workflowTitle(run.workflowType)} <code class="run-id">{runId}</code>
      </h1>
      {run === undefined ? (
        <p role="status">Loading the run…</p>
      ) : (
        <>
          <p role="status" aria-live="polite" class="run-state">
            State: <StateBadge state={run.state} terminal={run.terminal} />
            {run.terminal ? '' : ' (live)'}
          </p>
          <dl class="run-facts">
            <dt>Attempt</dt>
            <dd>{run.attemptNo}</dd>
            <dt>Started</dt>
            <dd>
              <time dateTime={run.createdAt}>{new Date(run.createdAt).toLocaleString()}</time>
            </dd>
            <dt>Updated</dt>
            <dd>
              <time dateTime={run.updatedAt}>{new Date(run.updatedAt).toLocaleString()}</time>
            </dd>
            {run.parentRunId !== null && (
              <>
                <dt>Parent run</dt>
                <dd>
                  <a href={hrefOf({ page: 'run', runId: run.parentRunId })}>
                    <code>{run.parentRunId}</code>
                  </a>
                </dd>
              </>
            )}
          </dl>
          <Progress run={run} transitions={transitions} />
          {!run.terminal && (
            <p>
              <button type="button" class="secondary" onClick={() => void cancel()}>
                Cancel this run
              </button>
            </p>
          )}
          {cancelOutcome !== undefined && <p role="status">{cancelOutcome}</p>}
          {run.workflowType === 'retrieve_or_generate' && run.state === 'SUCCEEDED' && <Solution runId={runId} />}
          <Timeline transitions={transitions} />
          <details>
            <summary>The run's view (as the workflow publishes it)</summary>
            <pre class="view">{JSON.stringify(run.view, null, 2)}</pre>
          </details>
        </>
      )}
    </section>
  );
}
