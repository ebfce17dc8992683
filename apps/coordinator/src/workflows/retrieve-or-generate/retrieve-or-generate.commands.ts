import { IndexDocument, type MessageData, NormalizeMedia, RegisterSolution, SearchSolutions } from '@openpaw/contracts';
import { type Effect, type RunSnapshot, sendTry, type StepProgress } from '@openpaw/saga';
import type { WorkflowTimings } from '../shared/timings.js';
import { methodThresholdsOf } from './retrieval-bars.js';
import { required, type RetrieveOrGenerateData, type StepName } from './retrieve-or-generate.data.js';
import type { RetrieveOrGenerateState } from './retrieve-or-generate.states.js';

type D = RetrieveOrGenerateData;
type Run = RunSnapshot<RetrieveOrGenerateState, D>;

/** The effect key of the solve child run. */
export const SOLVE_CHILD_KEY = 'solve';

/** The commands the run sends to the owning services, one per command step. */
export function retrieveOrGenerateCommands(timings: WorkflowTimings) {
  /** The command of a step's latest try, rebuilt from the run's data (a retry re-sends the same request). */
  const commandFor = (run: Run, data: D, step: StepProgress<StepName>): Effect => {
    switch (step.name) {
      case 'ingest':
        return sendTry(NormalizeMedia, { runId: run.id, submission: data.request.submission }, step, timings.ingest.timeoutMs);
      case 'retrieve': {
        const search: MessageData<typeof SearchSolutions> = {
          runId: run.id,
          signature: required(data.signature, 'the problem signature'),
          threshold: data.policy.retrieval_threshold,
          methodThresholds: methodThresholdsOf(data.policy),
        };
        return sendTry(SearchSolutions, search, step, timings.retrieve.timeoutMs);
      }
      case 'register': {
        const solution = required(data.solution, 'the solution');
        const register: MessageData<typeof RegisterSolution> = {
          runId: run.id,
          signature: required(data.signature, 'the problem signature'),
          storageKey: solution.storageKey,
          contentSha256: solution.contentSha256,
          provenance: solution.provenance,
        };
        return sendTry(RegisterSolution, register, step, timings.register.timeoutMs);
      }
      case 'index': {
        const version = required(data.assetVersionCreated, 'the asset version');
        const index: MessageData<typeof IndexDocument> = {
          runId: run.id,
          problemId: version.problemId,
          assetVersionId: version.assetVersionId,
          signature: required(data.signature, 'the problem signature'),
        };
        // The run does not wait for the index: on timeout it succeeds and reindexes in the background,
        // so this timeout runs from the send even while retrieval's lane is busy or down.
        return sendTry(IndexDocument, index, step, timings.index.timeoutMs, { timeoutFrom: 'send' });
      }
    }
  };

  return { commandFor };
}

export type RetrieveOrGenerateCommands = ReturnType<typeof retrieveOrGenerateCommands>;
