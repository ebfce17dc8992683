import { type MessageData, RenderPriorityVideo, RenderVideo, VideoRendered, VideoRenderFailed } from '@openpaw/contracts';
import { type Decision, eventOf, type RunSnapshot, type SagaDefinition, type SagaInput } from '@openpaw/saga';
import { z } from 'zod';
import {
  clearPendingRetry,
  clearStepTimeout,
  firstTry,
  isReplyTo,
  isReplyToLatest,
  isRetryDue,
  isStepTimeout,
  nextTry,
  retriesUsed,
  scheduleRetry,
  sendTry,
  type StepProgress,
} from '../shared/command-steps.js';
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
    // `sync` renders go to the priority lane, ahead of background renders (ADR: video_generation sync).
    return sendTry(mode === 'sync' ? RenderPriorityVideo : RenderVideo, command, step, timings.render.timeoutMs);
  };

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

  const onEvent = (run: VideoRun, input: SagaInput): VideoDecision => {
    const step = run.data.step;
    const rendered = eventOf(input, VideoRendered);
    if (rendered !== undefined) {
      const d = rendered.data;
      if (run.state !== 'RENDERING' || !isReplyTo(run, step, 'render', d.commandId)) return ignore('stale VideoRendered');
      if (d.solutionAssetVersionId !== run.data.request.solutionAssetVersionId) return { outcome: 'refuse', reason: 'VideoRendered for another solution' };
      return {
        outcome: 'transition',
        to: 'SUCCEEDED',
        data: { ...run.data, video: { assetVersionId: d.videoAssetVersionId, storageKey: d.storageKey, durationMs: d.durationMs } },
        step: 'video_rendered',
        effects: clearPendingRetry(step),
      };
    }
    const failed = eventOf(input, VideoRenderFailed);
    if (failed !== undefined) {
      if (run.state !== 'RENDERING' || step === null || !isReplyToLatest(run, step, 'render', failed.data.commandId)) return ignore('stale VideoRenderFailed');
      return onFailure(run, step, failed.data.retryable, 'render_failed', failed.data.detail, 'render_failed');
    }
    return ignore(`not an input of ${VIDEO_WORKFLOW}`);
  };

  const onTimer = (run: VideoRun, input: SagaInput): VideoDecision => {
    const step = run.data.step;
    if (run.state !== 'RENDERING' || step === null) return ignore('timer outside RENDERING');
    if (isStepTimeout(input, step)) return onFailure(run, step, true, 'render_timeout', `no reply within ${timings.render.timeoutMs} ms`, 'render_timed_out');
    if (isRetryDue(run, input, step)) {
      const next = nextTry(step);
      return { outcome: 'stay', data: { ...run.data, step: next }, step: 'render_retried', effects: [render(run, next)] };
    }
    return ignore('stale timer');
  };

  return {
    type: VIDEO_WORKFLOW,
    states: VIDEO_STATES,
    initial: 'INITIATED',
    transitions: VIDEO_TRANSITIONS,
    terminal: ['SUCCEEDED', 'FAILED', 'CANCELLED'],
    cancelledState: 'CANCELLED',
    // An operator (or the owner) may re-drive a failed render with the same key.
    retryableFrom: ['FAILED'],
    inputs: [VideoRendered, VideoRenderFailed],
    init(input) {
      return { request: videoStartSchema.parse(input), startedAt: null, step: null, video: null, errorCode: null, errorDetail: null };
    },
    decide(run, input, { now }) {
      switch (input.kind) {
        case 'start': {
          const step = firstTry('render');
          return {
            outcome: 'transition',
            to: 'RENDERING',
            data: { ...run.data, startedAt: now.toISOString(), step },
            step: 'render_requested',
            effects: [render(run, step)],
          };
        }
        case 'event':
          return onEvent(run, input);
        case 'timer':
          return onTimer(run, input);
        case 'child':
        case 'human':
        case 'cancel':
          return ignore(`${input.kind} is not an input of ${VIDEO_WORKFLOW}`);
      }
    },
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
