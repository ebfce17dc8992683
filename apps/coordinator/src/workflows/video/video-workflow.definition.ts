import { type MessageData, RenderPriorityVideo, RenderVideo, VideoRendered, VideoRenderFailed } from '@openpaw/contracts';
import {
  clearPendingRetry,
  clearStepTimeout,
  type Decision,
  decideByTable,
  firstTry,
  isReplyTo,
  isReplyToLatest,
  isRetryDue,
  isStepTimeout,
  nextTry,
  onEvent,
  onStart,
  onTimer,
  retriesUsed,
  retryTimerName,
  type RunSnapshot,
  type SagaDefinition,
  scheduleRetry,
  sendTry,
  stepTimeoutInputName,
  type StepProgress,
  transitionsOf,
  type WorkflowTable,
} from '@openpaw/saga';
import { z } from 'zod';
import { durationMs, statusOf } from '../shared/run-status.js';
import { DEFAULT_WORKFLOW_TIMINGS, RETRIES, type WorkflowTimings } from '../shared/timings.js';
import { VIDEO_WORKFLOW } from '../shared/workflow-types.js';

/**
 * VideoWorkflow: a background run started by retrieve_or_generate after SUCCEEDED (outcome=new) when
 * policy.video_generation is not `skip`. Nothing waits for it; the client learns of the video from
 * `video_pending` and this run's events. RenderVideo; a retryable failure or no reply in time is
 * retried with exponential backoff up to RETRIES.render times.
 */
export const VIDEO_STATES = ['INITIATED', 'RENDERING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type VideoState = (typeof VIDEO_STATES)[number];

/** The spec's table (the definition's, derived from its rows, must equal it: see the spec file). */
export const VIDEO_TRANSITIONS = {
  INITIATED: ['RENDERING', 'CANCELLED'],
  RENDERING: ['SUCCEEDED', 'FAILED', 'CANCELLED'],
} as const satisfies Partial<Record<VideoState, readonly VideoState[]>>;

export const videoStartSchema = z.object({
  problemId: z.uuid(),
  solutionAssetVersionId: z.uuid(),
  /** policy.video_generation of the parent (never `skip`: then no run is started). */
  mode: z.enum(['async', 'sync']),
});
export type VideoStart = z.infer<typeof videoStartSchema>;

export type VideoErrorCode = 'render_failed' | 'render_timeout';

export interface VideoData {
  readonly request: VideoStart;
  readonly startedAt: string | null;
  readonly step: StepProgress<'render'> | null;
  readonly video: { readonly assetVersionId: string; readonly storageKey: string; readonly durationMs: number } | null;
  readonly errorCode: VideoErrorCode | null;
  readonly errorDetail: string | null;
}

type VideoRun = RunSnapshot<VideoState, VideoData>;
type VideoDecision = Decision<VideoState, VideoData>;

const ignore = (reason: string): VideoDecision => ({ outcome: 'ignore', reason });

export function videoWorkflowDefinition(timings: WorkflowTimings = DEFAULT_WORKFLOW_TIMINGS): SagaDefinition<VideoState, VideoData> {
  const render = (run: VideoRun, step: StepProgress<'render'>) => {
    const { problemId, solutionAssetVersionId, mode } = run.data.request;
    const command: MessageData<typeof RenderVideo> = { runId: run.id, problemId, solutionAssetVersionId, mode };
    // `sync` renders go to the priority lane, ahead of background renders (ADR 0011).
    return sendTry(mode === 'sync' ? RenderPriorityVideo : RenderVideo, command, step, timings.render.timeoutMs);
  };

  /** A failed or timed-out try: retried with backoff while retries remain (stays in RENDERING), else FAILED. */
  const onFailure = (run: VideoRun, step: StepProgress<'render'>, retryable: boolean, errorCode: VideoErrorCode, detail: string, stepName: string): VideoDecision => {
    if (retryable && retriesUsed(step) < RETRIES.render) {
      const retry = scheduleRetry(run, step, timings.render.backoff, errorCode);
      // A failure reply makes the try's step timeout moot; a timeout has already fired it.
      const effects = errorCode === 'render_failed' ? [clearStepTimeout(step), ...retry.effects] : retry.effects;
      return { outcome: 'stay', data: { ...run.data, step: retry.step }, step: stepName, logs: [retry.log], effects };
    }
    const why = retryable ? `${detail} (retries exhausted: ${step.tries} attempts)` : detail;
    return {
      outcome: 'transition',
      to: 'FAILED',
      data: { ...run.data, errorCode, errorDetail: why },
      step: stepName,
      logs: [{ step: 'error_recorded', payload: { error_code: errorCode, detail: why, attempts: step.tries } }],
    };
  };

  /** Spec rows: state → input → targets → decision. */
  const table: WorkflowTable<VideoState, VideoData> = {
    INITIATED: [
      onStart(['RENDERING'], (run, _start, { now }) => {
        const step = firstTry('render');
        return { outcome: 'transition', to: 'RENDERING', data: { ...run.data, startedAt: now.toISOString(), step }, step: 'render_requested', effects: [render(run, step)] };
      }),
    ],
    RENDERING: [
      onEvent(VideoRendered, ['SUCCEEDED'], (run, { data: d }) => {
        if (!isReplyTo(run, run.data.step, 'render', d.commandId)) return ignore('stale VideoRendered');
        if (d.solutionAssetVersionId !== run.data.request.solutionAssetVersionId) return { outcome: 'refuse', reason: 'VideoRendered for another solution' };
        const video = { assetVersionId: d.videoAssetVersionId, storageKey: d.storageKey, durationMs: d.durationMs };
        return { outcome: 'transition', to: 'SUCCEEDED', data: { ...run.data, video }, step: 'video_rendered', effects: clearPendingRetry(run.data.step) };
      }),
      onEvent(VideoRenderFailed, ['FAILED'], (run, { data: d }) => {
        const step = run.data.step;
        if (step === null || !isReplyToLatest(run, step, 'render', d.commandId)) return ignore('stale VideoRenderFailed');
        return onFailure(run, step, d.retryable, 'render_failed', d.detail, 'render_failed');
      }),
      onTimer(stepTimeoutInputName('render'), ['FAILED'], (run, timer) => {
        const step = run.data.step;
        if (step === null || !isStepTimeout({ kind: 'timer', ...timer }, step)) return ignore('stale step timeout');
        return onFailure(run, step, true, 'render_timeout', `no reply within ${timings.render.timeoutMs} ms`, 'render_timed_out');
      }),
      onTimer(retryTimerName('render'), [], (run, timer) => {
        const step = run.data.step;
        if (step === null || !isRetryDue(run, { kind: 'timer', ...timer }, step)) return ignore('stale retry timer');
        const next = nextTry(step);
        return { outcome: 'stay', data: { ...run.data, step: next }, step: 'render_retried', effects: [render(run, next)] };
      }),
    ],
  };

  return {
    type: VIDEO_WORKFLOW,
    states: VIDEO_STATES,
    initial: 'INITIATED',
    transitions: transitionsOf(table, { from: ['INITIATED', 'RENDERING'], to: 'CANCELLED' }),
    terminal: ['SUCCEEDED', 'FAILED', 'CANCELLED'],
    cancelledState: 'CANCELLED',
    // An operator (or the owner) may re-drive a failed render with the same key.
    retryableFrom: ['FAILED'],
    inputs: [VideoRendered, VideoRenderFailed],
    init(input) {
      return { request: videoStartSchema.parse(input), startedAt: null, step: null, video: null, errorCode: null, errorDetail: null };
    },
    decide: decideByTable(VIDEO_WORKFLOW, table),
    view(run) {
      const d = run.data;
      return {
        status: statusOf(run.state),
        state: run.state,
        mode: d.request.mode,
        attempts: d.step?.tries ?? 0,
        solution_asset_version_id: d.request.solutionAssetVersionId,
        duration_ms: durationMs(run, d.startedAt),
        ...(d.video === null
          ? {}
          : { video_asset_version_id: d.video.assetVersionId, storage_key: d.video.storageKey, video_duration_ms: d.video.durationMs }),
        ...(d.errorCode === null ? {} : { error_code: d.errorCode }),
        ...(d.errorDetail === null ? {} : { error_detail: d.errorDetail }),
      };
    },
  };
}
