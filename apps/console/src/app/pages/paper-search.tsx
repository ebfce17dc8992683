import { useEffect, useState } from 'preact/hooks';
import { useGatewayClient } from '../api/context.js';
import { followRun } from '../api/follow-run.js';
import { readCaughtUp, readOnceProjected } from '../api/projection.js';
import { errorMessage, type PaperSearch } from '../api/resources.js';
import { PaperExport } from '../components/paper-export.js';
import { CutNotes, ResultReview, StrategyConfirmation, type CheckpointDecision } from '../components/paper-checkpoints.js';
import { cutNotes } from '../components/search-notes.js';
import { StateBadge } from '../components/state-badge.js';
import { hrefOf } from '../routes.js';
import { stateLabel } from '../workflows.js';

/**
 * One paper search (spec 04), live: its state from the run's server-sent events (each one re-reads
 * `GET /paper-searches/{id}`), the open checkpoint to decide (strategy confirmation, result review),
 * and the papers found.
 */
export function PaperSearchPage({ searchId }: { searchId: string }) {
  const client = useGatewayClient();
  const [search, setSearch] = useState<PaperSearch | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<string | undefined>();

  useEffect(() => {
    const abort = new AbortController();
    /** Re-reads the resource; after a state event, until it shows that state. */
    const read = async (announced?: string): Promise<void> => {
      const request = () => client.GET('/paper-searches/{id}', { params: { path: { id: searchId } }, signal: abort.signal });
      const { data, error } = announced === undefined ? await readOnceProjected(request) : await readCaughtUp(request, announced);
      if (data !== undefined) setSearch(data);
      else setProblem(errorMessage(error, 'The paper search could not be read.'));
    };
    void (async () => {
      await read();
      await followRun(client, searchId, (run) => void read(run.state), abort.signal);
      await read();
    })().catch((error: unknown) => {
      if (!abort.signal.aborted) setProblem(error instanceof Error ? error.message : 'The paper search could not be followed.');
    });
    return () => abort.abort();
  }, [client, searchId]);

  const decide = async (checkpointId: string, decision: CheckpointDecision): Promise<string | undefined> => {
    const { data, error, response } = await client.POST('/paper-searches/{id}/checkpoints/{checkpointId}/decision', {
      params: { path: { id: searchId, checkpointId } },
      body: decision,
    });
    if (data === undefined) return `Refused (${response.status}): ${errorMessage(error, 'the gateway refused it')}.`;
    setOutcome(`Decision ${decision.action}: ${data.status}.`);
    return undefined;
  };

  if (search === undefined) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Paper search</h1>
        {problem === undefined ? (
          <p role="status">Loading the search…</p>
        ) : (
          <p class="error" role="alert">
            {problem}
          </p>
        )}
      </section>
    );
  }
  const checkpoint = search.checkpoint;
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Paper search: {search.query}</h1>
      <p role="status" aria-live="polite" class="run-state">
        State: <StateBadge state={search.state} terminal={search.terminal} /> (iteration {search.iteration})
      </p>
      <p>
        <a href={hrefOf({ page: 'run', runId: search.runId })}>The run's state diagram and timeline</a>
      </p>
      {outcome !== undefined && <p role="status">{outcome}</p>}
      {checkpoint?.kind === 'strategy_confirmation' && (
        <StrategyConfirmation key={checkpoint.checkpointId} checkpoint={checkpoint} onDecide={(decision) => decide(checkpoint.checkpointId, decision)} />
      )}
      {checkpoint?.kind === 'result_review' && <ResultReview key={checkpoint.checkpointId} checkpoint={checkpoint} papersTrimmed={search.papersTrimmed} onDecide={(decision) => decide(checkpoint.checkpointId, decision)} />}
      {(checkpoint?.kind === 'result_review' || (search.terminal && search.accumulatedPapers.length > 0)) && <PaperExport searchId={searchId} />}
      {search.error !== null && (
        <p class="error" role="alert">
          {search.error.detail}
        </p>
      )}
      {search.terminal && (
        <section aria-labelledby="papers-title">
          <h2 id="papers-title">Papers ({search.accumulatedPapers.length})</h2>
          <p>
            {search.completion === null ? `Ended in ${stateLabel(search.state)}.` : `Completed: ${search.completion.replaceAll('_', ' ')}.`}
          </p>
          <CutNotes notes={cutNotes(search.result?.metadata.cuts, search.papersTrimmed, search.result?.storedPapersUnavailable)} />
          <ul class="papers">
            {search.accumulatedPapers.map((paper) => (
              <li key={paper.id}>
                {paper.title}
                {paper.year === null ? '' : ` (${paper.year})`}
              </li>
            ))}
          </ul>
        </section>
      )}
    </section>
  );
}
