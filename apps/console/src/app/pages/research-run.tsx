import { useEffect, useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { followRun } from '../api/follow-run.js';
import { readCaughtUp, readOnceProjected } from '../api/projection.js';
import { errorMessage, type Research } from '../api/resources.js';
import { StateBadge } from '../components/state-badge.js';

type GateAction = 'proceed' | 'retry' | 'cancel';

const GATE_LABELS: Record<GateAction, string> = {
  proceed: 'Proceed with the successful reports',
  retry: 'Retry the failed models',
  cancel: 'Cancel the research',
};

/**
 * One research (spec 05): each model's leg live (the run's server-sent events, each one re-reading
 * `GET /research/{id}` for the spec's fields and its status → UI card), the human gate on a partial
 * failure (proceed / retry / cancel), the retry of a failed research (after updating a rejected key),
 * the synthesis and its share link.
 */
export function ResearchRunPage({ researchId }: { researchId: string }) {
  const client = useGatewayClient();
  const [research, setResearch] = useState<Research | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<string | undefined>();
  /** Bumped after a decision: a research reopened from `failed` is followed again. */
  const [following, setFollowing] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    /** Re-reads the resource; after a state event, until it shows that state. */
    const read = async (announced?: string): Promise<void> => {
      const request = () => client.GET('/research/{id}', { params: { path: { id: researchId } }, signal: abort.signal });
      const { data, error } = announced === undefined ? await readOnceProjected(request) : await readCaughtUp(request, announced);
      if (data !== undefined) setResearch(data);
      else setProblem(errorMessage(error, 'The research could not be read.'));
    };
    void (async () => {
      await read();
      await followRun(client, researchId, (run) => void read(run.state), abort.signal);
      await read();
    })().catch((error: unknown) => {
      if (!abort.signal.aborted) setProblem(error instanceof Error ? error.message : 'The research could not be followed.');
    });
    return () => abort.abort();
  }, [client, researchId, following]);

  const decide = async (action: GateAction): Promise<void> => {
    const { data, error, response } = await client.POST('/research/{id}/confirm', { params: { path: { id: researchId } }, body: { action } });
    if (data !== undefined) {
      setResearch(data);
      setOutcome(`${GATE_LABELS[action]}: now ${data.status}.`);
      setFollowing((count) => count + 1);
    } else setOutcome(`Refused (${response.status}): ${errorMessage(error, 'the gateway refused it')}.`);
  };

  /** A failed research the gateway offers to retry (`ui.actions`): its failed models run again, with the keys stored now. */
  const retry = async (): Promise<void> => {
    const { data, error, response } = await client.POST('/research/{id}/retry', { params: { path: { id: researchId } } });
    if (data !== undefined) {
      setResearch(data);
      setOutcome(`Retried: now ${data.status}.`);
      setFollowing((count) => count + 1);
    } else setOutcome(`Refused (${response.status}): ${errorMessage(error, 'the gateway refused the retry')}.`);
  };

  if (problem !== undefined) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Research</h1>
        <p class="error" role="alert">
          {problem}
        </p>
      </section>
    );
  }
  if (research === undefined) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Research</h1>
        <p role="status">Loading the research…</p>
      </section>
    );
  }
  const terminal = research.status === 'completed' || research.status === 'failed';
  const gateActions = research.status === 'awaiting_confirmation' ? research.ui.actions.filter((action): action is GateAction => action in GATE_LABELS) : [];
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Research: {research.title}</h1>
      <p role="status" aria-live="polite" class="run-state">
        Status: <StateBadge state={research.status} terminal={terminal} />
        {terminal ? '' : ' (live)'} — {research.ui.message}
      </p>
      <p>
        <a href={`#/runs/${research.id}`}>The run's state diagram and timeline</a>
      </p>
      <section aria-labelledby="legs-title">
        <h2 id="legs-title">Reports per model</h2>
        <table class="runs">
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Status</th>
              <th scope="col">Round</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {research.llmResults.map((leg) => (
              <tr key={leg.provider} data-leg={leg.provider} data-status={leg.status}>
                <td>
                  {leg.provider}
                  {leg.model === null ? '' : ` (${leg.model})`}
                </td>
                <td>
                  <StateBadge state={leg.status} terminal={leg.status === 'completed' || leg.status === 'failed'} />
                </td>
                <td>{leg.round}</td>
                <td>{leg.error ?? (leg.durationMs === null ? '' : `${(leg.durationMs / 1000).toFixed(1)} s`)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {gateActions.length > 0 && (
        <section aria-labelledby="gate-title" class="pending-step" data-gate="awaiting_confirmation">
          <h2 id="gate-title">Your decision</h2>
          <p>
            {research.partialFailure === null
              ? 'Some reports are missing.'
              : `${research.partialFailure.failedProviders.join(', ')} failed (retries so far: ${research.partialFailure.retryCount}).`}{' '}
            Proceed with the reports that succeeded, retry the failed models, or cancel.
          </p>
          {gateActions.map((action) => (
            <button type="button" key={action} class={action === 'proceed' ? '' : 'secondary'} onClick={() => void decide(action)}>
              {GATE_LABELS[action]}
            </button>
          ))}
        </section>
      )}
      {outcome !== undefined && <p role="status">{outcome}</p>}
      {research.error !== null && (
        <p class="error" role="alert">
          {research.error}
        </p>
      )}
      {research.status === 'failed' && research.ui.actions.includes('retry') && (
        <section aria-labelledby="retry-title" class="pending-step" data-retry="failed">
          <h2 id="retry-title">Retry</h2>
          {research.errorReason === 'auth' && (
            <p>
              A provider rejected your API key: <a href="#/settings">update your key in the settings</a>, then retry.
            </p>
          )}
          <button type="button" onClick={() => void retry()}>
            Retry the research
          </button>
        </section>
      )}
      {research.ui.showSynthesisNotAvailable && (
        <p class="error">
          Synthesis not available{research.synthesisError === null ? '.' : `: ${research.synthesisError}`}
          {research.shareInfo === null && ' With one report there is nothing to synthesise, so no share page is published: the report is below.'}
        </p>
      )}
      {research.synthesizedResult !== null && (
        <section aria-labelledby="synthesis-title">
          <h2 id="synthesis-title">Synthesis</h2>
          <p class="synthesis">{research.synthesizedResult}</p>
          {research.synthesisTruncated === true && <p class="hint">The synthesis was cut short (the model's output limit, or the size limit): it is not whole.</p>}
        </section>
      )}
      {research.llmResults.some((leg) => leg.result !== null) && (
        <section aria-labelledby="reports-title">
          <h2 id="reports-title">Individual reports</h2>
          {research.llmResults.map(
            (leg) =>
              leg.result !== null && (
                <details key={leg.provider} open={research.synthesizedResult === null} data-report={leg.provider}>
                  <summary>
                    Report by {leg.provider}
                    {leg.truncated ? ' (truncated)' : ''}
                  </summary>
                  <p class="synthesis">{leg.result}</p>
                </details>
              ),
          )}
        </section>
      )}
      {research.shareInfo !== null && (
        <section aria-labelledby="share-title">
          <h2 id="share-title">Share</h2>
          <div class="share-link">
            <label for="share-url">Share link</label>
            <input id="share-url" type="url" readOnly value={new URL(research.shareInfo.url, location.origin).href} />
            <span class="hint">
              The report page, for anyone with the link, until <time dateTime={research.shareInfo.expiresAt}>{new Date(research.shareInfo.expiresAt).toLocaleString()}</time>.
            </span>
          </div>
        </section>
      )}
    </section>
  );
}
