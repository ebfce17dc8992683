import { useEffect, useState } from 'preact/hooks';
import type { GatewayClient } from '../api/client.js';
import { useGatewayClient } from '../api/context.js';
import { followRun } from '../api/follow-run.js';
import { readOnceProjected } from '../api/projection.js';
import { errorMessage, type Run, type RunTransition } from '../api/resources.js';
import { PendingStep } from '../components/pending-step.js';
import { Progress } from '../components/progress.js';
import { ShareLink, type SharedLink } from '../components/share-link.js';
import { Solution } from '../components/solution.js';
import { SolutionVideo } from '../components/solution-video.js';
import { StateDiagram } from '../components/state-diagram.js';
import { StateBadge } from '../components/state-badge.js';
import { Timeline } from '../components/timeline.js';
import { hrefOf } from '../routes.js';
import { workflowTitle } from '../workflows.js';

async function readRun(client: GatewayClient, runId: string, signal: AbortSignal): Promise<{ run?: Run; problem: string }> {
  const { data, error } = await readOnceProjected(() => client.GET('/runs/{id}', { params: { path: { id: runId } }, signal }));
  return data !== undefined ? { run: data, problem: '' } : { problem: errorMessage(error, 'The run could not be read.') };
}

/** How often the pending step's "since" is refreshed while the run is live. */
const CLOCK_TICK_MS = 5000;

/** The solution's asset version in a RetrieveOrGenerate run's view (`output.asset_version_id`), once it has one. */
function solutionAssetOf(run: Run): string | undefined {
  const output = (run.view as { output?: { asset_version_id?: unknown } }).output;
  return typeof output?.asset_version_id === 'string' ? output.asset_version_id : undefined;
}

function useClock(live: boolean): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setNow(new Date()), CLOCK_TICK_MS);
    return () => clearInterval(timer);
  }, [live]);
  return now;
}

/**
 * One run: its state live (server-sent events until it ends), its progress on the workflow's main
 * path and on its workflow's state diagram, what it waits for, the solution, video and share link
 * once there is one, and its timeline of state changes.
 */
export function RunDetailPage({ runId }: { runId: string }) {
  const client = useGatewayClient();
  const [run, setRun] = useState<Run | undefined>();
  const [transitions, setTransitions] = useState<RunTransition[]>([]);
  const [problem, setProblem] = useState<string | undefined>();
  const [cancelOutcome, setCancelOutcome] = useState<string | undefined>();
  const now = useClock(run !== undefined && !run.terminal);

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

  const shareSolution = async (assetVersionId: string): Promise<SharedLink | string> => {
    const { data, error } = await client.POST('/assets/{assetVersionId}/share', { params: { path: { assetVersionId } }, body: {} });
    return data !== undefined ? { url: data.url, expiresAt: data.expires_at } : errorMessage(error, 'The gateway refused to share it.');
  };
  const solutionAsset = run === undefined ? undefined : solutionAssetOf(run);

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
          <PendingStep run={run} transitions={transitions} now={now} />
          <StateDiagram workflowType={run.workflowType} state={run.state} transitions={transitions} />
          {!run.terminal && (
            <p>
              <button type="button" class="secondary" onClick={() => void cancel()}>
                Cancel this run
              </button>
            </p>
          )}
          {cancelOutcome !== undefined && <p role="status">{cancelOutcome}</p>}
          {run.workflowType === 'retrieve_or_generate' && run.state === 'SUCCEEDED' && (
            <>
              <Solution runId={runId} />
              <SolutionVideo runId={runId} />
              {solutionAsset !== undefined && <ShareLink what="the solution" create={() => shareSolution(solutionAsset)} />}
            </>
          )}
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
