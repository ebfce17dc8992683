import { IndexDocument, type MessageData, NormalizeMedia, RegisterSolution, SearchSolutions, type Submission } from '@openpaw/contracts';
import { type Effect, type RunSnapshot, sendTry } from '@openpaw/saga';
import type { WorkflowTimings } from '../shared/timings.js';
import { mathsSignatureBarOf, methodThresholdsOf } from './retrieval-bars.js';
import type { RetrieveOrGenerateData, StepData } from './retrieve-or-generate.data.js';
import type { RetrieveOrGenerateState } from './retrieve-or-generate.states.js';

type Run = RunSnapshot<RetrieveOrGenerateState, RetrieveOrGenerateData>;

/** The effect key of the solve child run. */
export const SOLVE_CHILD_KEY = 'solve';

/** The commands the run sends to the owning services, one per command step. */
export function retrieveOrGenerateCommands(timings: WorkflowTimings) {
  /** The command of the stage's step, latest try, rebuilt from the stage's data (a retry re-sends the same request). */
  const commandFor = (run: Run, data: StepData): Effect => {
    switch (data.stage) {
      case 'ingesting':
      {
        // Once its owner answered an uncertain reading, the text they confirmed or corrected is the problem.
        const answered = data.reading?.answer;
        const submission: Submission = answered === undefined ? data.request.submission : { kind: 'text', text: answered.text };
        // The tenant lets ingestion apply its external-reading policy and cap (an image goes out only where allowed).
        const tenant = { userId: run.userId, subscriptionTier: data.request.subscriptionTier };
        return sendTry(NormalizeMedia, { runId: run.id, submission, tenant }, data.step, timings.ingest.timeoutMs);
      }
      case 'searching': {
        const search: MessageData<typeof SearchSolutions> = {
          runId: run.id,
          signature: data.signature,
          threshold: data.policy.retrieval_threshold,
          mathsSignatureThreshold: mathsSignatureBarOf(data.policy),
          methodThresholds: methodThresholdsOf(data.policy),
        };
        return sendTry(SearchSolutions, search, data.step, timings.retrieve.timeoutMs);
      }
      case 'registering': {
        const { solution } = data;
        const register: MessageData<typeof RegisterSolution> = {
          runId: run.id,
          signature: data.signature,
          storageKey: solution.storageKey,
          contentSha256: solution.contentSha256,
          provenance: solution.provenance,
        };
        return sendTry(RegisterSolution, register, data.step, timings.register.timeoutMs);
      }
      case 'indexing': {
        const version = data.assetVersionCreated;
        const index: MessageData<typeof IndexDocument> = {
          runId: run.id,
          problemId: version.problemId,
          assetVersionId: version.assetVersionId,
          signature: data.signature,
        };
        // The run does not wait for the index: on timeout it succeeds and reindexes in the background,
        // so this timeout runs from the send even while retrieval's lane is busy or down.
        return sendTry(IndexDocument, index, data.step, timings.index.timeoutMs, { timeoutFrom: 'send' });
      }
    }
  };

  return { commandFor };
}

export type RetrieveOrGenerateCommands = ReturnType<typeof retrieveOrGenerateCommands>;
