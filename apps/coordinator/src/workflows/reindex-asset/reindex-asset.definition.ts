import { DocumentIndexed, IndexDocument, type MessageData, problemSignature } from '@openpaw/contracts';
import { clearPendingRetry, type Decision, eventOf, firstTry, isReplyTo, isRetryDue, isStepTimeout, nextTry, type RunSnapshot, type SagaDefinition, type SagaInput, scheduleRetry, sendTry, type StepProgress } from '@openpaw/saga';
import { z } from 'zod';
import { durationMs, statusOf } from '../shared/run-status.js';
import { DEFAULT_WORKFLOW_TIMINGS, REINDEX_MAX_ATTEMPTS, type WorkflowTimings } from '../shared/timings.js';
import { REINDEX_ASSET } from '../shared/workflow-types.js';

/**
 * ReindexAsset (spec 01's `admin.ReindexAsset`): a background run started when retrieve_or_generate's
 * INDEXING timed out (the run succeeded anyway; the asset is served but not yet searchable).
 * IndexDocument with a step timeout, up to REINDEX_MAX_ATTEMPTS attempts with exponential backoff.
 * Not cancellable: it repairs the index, and nobody waits for it.
 */
export const REINDEX_STATES = ['INITIATED', 'INDEXING', 'SUCCEEDED', 'FAILED'] as const;
export type ReindexState = (typeof REINDEX_STATES)[number];

export const REINDEX_TRANSITIONS = {
  INITIATED: ['INDEXING'],
  INDEXING: ['SUCCEEDED', 'FAILED'],
} as const satisfies Partial<Record<ReindexState, readonly ReindexState[]>>;

export const reindexStartSchema = z.object({ problemId: z.uuid(), assetVersionId: z.uuid(), signature: problemSignature });
export type ReindexStart = z.infer<typeof reindexStartSchema>;

export interface ReindexData {
  readonly request: ReindexStart;
  readonly startedAt: string | null;
  readonly step: StepProgress<'index'> | null;
  readonly errorCode: 'index_timeout' | null;
}

type ReindexRun = RunSnapshot<ReindexState, ReindexData>;
type ReindexDecision = Decision<ReindexState, ReindexData>;

const ignore = (reason: string): ReindexDecision => ({ outcome: 'ignore', reason });

export function reindexAssetDefinition(timings: WorkflowTimings = DEFAULT_WORKFLOW_TIMINGS): SagaDefinition<ReindexState, ReindexData> {
  const index = (run: ReindexRun, step: StepProgress<'index'>) => {
    const { problemId, assetVersionId, signature } = run.data.request;
    const command: MessageData<typeof IndexDocument> = { runId: run.id, problemId, assetVersionId, signature };
    return sendTry(IndexDocument, command, step, timings.reindex.timeoutMs);
  };

  const onEvent = (run: ReindexRun, input: SagaInput): ReindexDecision => {
    const indexed = eventOf(input, DocumentIndexed);
    if (indexed === undefined) return ignore(`not an input of ${REINDEX_ASSET}`);
    const step = run.data.step;
    if (run.state !== 'INDEXING' || !isReplyTo(run, step, 'index', indexed.data.commandId)) return ignore('stale DocumentIndexed');
    if (indexed.data.assetVersionId !== run.data.request.assetVersionId) return { outcome: 'refuse', reason: 'DocumentIndexed for another asset version' };
    return { outcome: 'transition', to: 'SUCCEEDED', data: run.data, step: 'document_indexed', effects: clearPendingRetry(step) };
  };

  const onTimer = (run: ReindexRun, input: SagaInput): ReindexDecision => {
    const step = run.data.step;
    if (run.state !== 'INDEXING' || step === null) return ignore('timer outside INDEXING');
    if (isStepTimeout(input, step)) {
      if (step.tries < REINDEX_MAX_ATTEMPTS) {
        const retry = scheduleRetry(run, step, timings.reindex.backoff, 'timeout');
        return { outcome: 'stay', data: { ...run.data, step: retry.step }, step: 'index_timed_out', logs: [retry.log], effects: retry.effects };
      }
      const detail = `no DocumentIndexed after ${step.tries} attempts`;
      return {
        outcome: 'transition',
        to: 'FAILED',
        data: { ...run.data, errorCode: 'index_timeout' },
        step: 'index_timed_out',
        logs: [{ step: 'error_recorded', payload: { error_code: 'index_timeout', detail, attempts: step.tries } }],
      };
    }
    if (isRetryDue(run, input, step)) {
      const next = nextTry(step);
      return { outcome: 'stay', data: { ...run.data, step: next }, step: 'index_retried', effects: [index(run, next)] };
    }
    return ignore('stale timer');
  };

  return {
    type: REINDEX_ASSET,
    states: REINDEX_STATES,
    initial: 'INITIATED',
    transitions: REINDEX_TRANSITIONS,
    terminal: ['SUCCEEDED', 'FAILED'],
    // An operator may re-drive a failed reindex with the same key.
    retryableFrom: ['FAILED'],
    inputs: [DocumentIndexed],
    init(input) {
      return { request: reindexStartSchema.parse(input), startedAt: null, step: null, errorCode: null };
    },
    decide(run, input, { now }) {
      switch (input.kind) {
        case 'start': {
          const step = firstTry('index');
          return { outcome: 'transition', to: 'INDEXING', data: { ...run.data, startedAt: now.toISOString(), step }, step: 'index_requested', effects: [index(run, step)] };
        }
        case 'event':
          return onEvent(run, input);
        case 'timer':
          return onTimer(run, input);
        case 'child':
        case 'human':
        case 'cancel':
        case 'claim':
          return ignore(`${input.kind} is not an input of ${REINDEX_ASSET}`);
      }
    },
    view(run) {
      const d = run.data;
      return {
        status: statusOf(run.state),
        state: run.state,
        attempts: d.step?.tries ?? 0,
        asset_version_id: d.request.assetVersionId,
        problem_id: d.request.problemId,
        duration_ms: durationMs(run, d.startedAt),
        ...(d.errorCode === null ? {} : { error_code: d.errorCode }),
      };
    },
  };
}
