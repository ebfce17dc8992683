import type { RetrievalHit} from '@openpaw/contracts';
import { AssetVersionCreated, DocumentIndexed, IndexDocument, MediaNormalized, type MessageData, NormalizeMedia, ProblemRegistered, RegisterSolution, RetrievalMiss, SearchSolutions } from '@openpaw/contracts';
import { DEFAULT_POLICY_CONFIG, mergePolicyConfig, type PolicyConfig } from '../../policy/index.js';
import { SOLVE_WORKFLOW } from '../../shared/workflow-types.js';
import { type SolveView } from '../../solve/solve-workflow.definition.js';
import { SagaDriver, sha256Of, signature, uuid } from '../../testing/saga-driver.js';
import { type DataAt, type RetrieveOrGenerateData, retrieveOrGenerateDefinition } from '../retrieve-or-generate.definition.js';

/**
 * Given helpers of the retrieve_or_generate specs (one spec file per concern): the spec's fixtures, and a
 * run brought to each state through the inputs that lead there.
 */
export const definition = retrieveOrGenerateDefinition();
export const START = { submission: { kind: 'text', text: '2x + 3 = 7' }, contentDigest: sha256Of('d') };
export const SIG = signature();
export const PROBLEM = uuid(0xb1);
export const ASSET = uuid(0xa1);
export const NEAR_ASSET = uuid(0xc1);
export const PROVENANCE = { model: 'local/deterministic', promptVersion: 'solve-v1', inputTokens: 120, outputTokens: 800, costUsd: 0.02, latencyMs: 40 };

export type Candidate = MessageData<typeof RetrievalHit>['candidate'];
export const candidate = (confidence: number, method: Candidate['method'] = 'vector', assetVersionId = ASSET): Candidate => ({
  assetVersionId,
  problemId: PROBLEM,
  confidence,
  method,
});

export const solvedView: SolveView = {
  status: 'succeeded',
  state: 'SUCCEEDED',
  attempts: 1,
  model: 'local/deterministic',
  cost_usd: 0.02,
  duration_ms: 12,
  storageKey: 'solutions/abc.html',
  contentSha256: sha256Of('e'),
  provenance: PROVENANCE,
};
/** A failed solve run's view; by default it failed after all its retries (the spec's near-miss condition). */
export const failedView = (errorCode: string, costUsd = 0.03, retriesExhausted = true): SolveView => ({
  status: 'failed',
  state: 'FAILED',
  attempts: 4,
  model: 'local/deterministic',
  cost_usd: costUsd,
  duration_ms: 12,
  error_code: errorCode,
  retries_exhausted: retriesExhausted,
});

export const dataOf = (d: SagaDriver): RetrieveOrGenerateData => d.s.run.data as RetrieveOrGenerateData;
/** The run's data, which must be at `stage`. */
export function dataAt<K extends RetrieveOrGenerateData['stage']>(d: SagaDriver, stage: K): DataAt<K> {
  const data = dataOf(d);
  expect(data.stage).toBe(stage);
  return data as DataAt<K>;
}
/** The run's view as it stands (after the last input, which may have been a claim's answer). */
export const viewOf = (d: SagaDriver) => definition.view(d.s.run as Parameters<typeof definition.view>[0]);

export function withPolicy(patch: Parameters<typeof mergePolicyConfig>[1]): PolicyConfig {
  return mergePolicyConfig(DEFAULT_POLICY_CONFIG, patch);
}

// Given helpers: a run brought to each state through the inputs that lead there.
export function ingesting(def = definition, input: Record<string, unknown> = START): SagaDriver {
  const d = new SagaDriver(def);
  d.start(input);
  return d;
}
export function retrieving(def = definition, input: Record<string, unknown> = START): SagaDriver {
  const d = ingesting(def, input);
  d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
  return d;
}
export function generating(topCandidate: Candidate | null = null, def = definition, input: Record<string, unknown> = START): { d: SagaDriver; solveRunId: string } {
  const d = retrieving(def, input);
  const step = d.reply(SearchSolutions, RetrievalMiss, { topCandidate, trace: [] });
  const [child] = SagaDriver.started(step);
  if (child === undefined) throw new Error('no child run');
  return { d, solveRunId: child.runId };
}
export function registering(def = definition, input: Record<string, unknown> = START): SagaDriver {
  const { d, solveRunId } = generating(null, def, input);
  d.child(SOLVE_WORKFLOW, solveRunId, 'SUCCEEDED', solvedView);
  return d;
}
export const problemRegistered = (d: SagaDriver) => d.reply(RegisterSolution, ProblemRegistered, { problemId: PROBLEM, created: true });
export const assetVersionCreated = (d: SagaDriver, over: Partial<MessageData<typeof AssetVersionCreated>> = {}) =>
  d.reply(RegisterSolution, AssetVersionCreated, {
    problemId: PROBLEM,
    assetVersionId: ASSET,
    assetType: 'solution_html',
    version: 1,
    storageKey: 'solutions/abc.html',
    contentType: 'text/html',
    ...over,
  });
export function indexing(def = definition, input: Record<string, unknown> = START): SagaDriver {
  const d = registering(def, input);
  problemRegistered(d);
  assetVersionCreated(d);
  return d;
}
export const documentIndexed = (d: SagaDriver, assetVersionId = ASSET) => d.reply(IndexDocument, DocumentIndexed, { assetVersionId, problemId: PROBLEM });
