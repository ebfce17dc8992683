import { InputRefused, laneOf, type MessageData, RenderPriorityVideo, RenderVideo, VideoRendered, VideoRenderFailed } from '@openpaw/contracts';
import { isAllowed, replayRun, validateDefinition } from '@openpaw/saga';
import { DEFAULT_WORKFLOW_TIMINGS } from '../shared/timings.js';
import { SagaDriver, uuid } from '../testing/saga-driver.js';
import { VIDEO_STATES, VIDEO_TRANSITIONS, videoWorkflowDefinition } from './video-workflow.definition.js';

const definition = videoWorkflowDefinition();
const PROBLEM = uuid(0xb1);
const SOLUTION = uuid(0xa1);
const VIDEO = uuid(0xf1);
const START = { problemId: PROBLEM, solutionAssetVersionId: SOLUTION, mode: 'async' };

function rendering(): SagaDriver {
  const d = new SagaDriver(definition);
  d.start(START);
  return d;
}
const rendered = (d: SagaDriver, over: Partial<MessageData<typeof VideoRendered>> = {}, index = -1) =>
  d.reply(RenderVideo, VideoRendered, { solutionAssetVersionId: SOLUTION, videoAssetVersionId: VIDEO, storageKey: 'videos/x.mp4', durationMs: 42_000, ...over }, index);
const renderFailed = (d: SagaDriver, retryable = true) =>
  d.reply(RenderVideo, VideoRenderFailed, { solutionAssetVersionId: SOLUTION, retryable, detail: 'ffmpeg exited 1' });

describe('video_workflow', () => {
  describe('the transition table', () => {
    const expected: Record<string, readonly string[]> = { ...VIDEO_TRANSITIONS };
    it.each(VIDEO_STATES.flatMap((from) => VIDEO_STATES.map((to) => [from, to] as const)))('%s -> %s is allowed exactly when the table lists it', (from, to) => {
      expect(isAllowed(definition, from, to)).toBe(expected[from]?.includes(to) ?? false);
    });

    it('is INITIATED -> RENDERING -> SUCCEEDED | FAILED, cancellable, re-attemptable from FAILED, and validates', () => {
      expect(VIDEO_TRANSITIONS).toEqual({ INITIATED: ['RENDERING', 'CANCELLED'], RENDERING: ['SUCCEEDED', 'FAILED', 'CANCELLED'] });
      // The table the engine enforces is derived from the definition's rows: it must be the spec's.
      expect(definition.transitions).toEqual(VIDEO_TRANSITIONS);
      expect(definition.retryableFrom).toEqual(['FAILED']);
      expect(() => validateDefinition(definition)).not.toThrow();
    });
  });

  describe('given a render request', () => {
    it('when started, then RENDERING with RenderVideo and a step timeout', () => {
      const d = new SagaDriver(definition);
      const step = d.start(START);
      expect(step.state).toBe('RENDERING');
      expect(step.steps()).toEqual(['run_started', 'render_requested']);
      expect(step.sent(RenderVideo)).toEqual([{ runId: d.runId, problemId: PROBLEM, solutionAssetVersionId: SOLUTION, mode: 'async' }]);
      expect(d.delayOf('resend:render:1')).toBe(DEFAULT_WORKFLOW_TIMINGS.render.timeoutMs);
    });

    it('when started in sync mode, then RenderPriorityVideo on the priority lane, not RenderVideo', () => {
      const d = new SagaDriver(definition);
      const step = d.start({ ...START, mode: 'sync' });
      expect(step.state).toBe('RENDERING');
      expect(step.sent(RenderVideo)).toEqual([]);
      expect(step.sent(RenderPriorityVideo)).toEqual([{ runId: d.runId, problemId: PROBLEM, solutionAssetVersionId: SOLUTION, mode: 'sync' }]);
      expect(laneOf(RenderPriorityVideo)).not.toBe(laneOf(RenderVideo));
    });

    it.each([
      ['mode skip', { ...START, mode: 'skip' }],
      ['no solution', { problemId: PROBLEM, mode: 'sync' }],
    ])('when started with %s, then refused', (_, input) => {
      expect(new SagaDriver(definition).start(input).sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'invalid_input' })]);
    });
  });

  describe('given a run in RENDERING', () => {
    it('when rendered, then SUCCEEDED with the video asset version in the view', () => {
      const d = rendering();
      const step = rendered(d);
      expect(step.state).toBe('SUCCEEDED');
      expect(step.view()).toEqual({
        status: 'succeeded',
        state: 'SUCCEEDED',
        mode: 'async',
        attempts: 1,
        solution_asset_version_id: SOLUTION,
        duration_ms: 0,
        video_asset_version_id: VIDEO,
        storage_key: 'videos/x.mp4',
        video_duration_ms: 42_000,
      });
    });

    it('when a render fails retryably, then it retries up to 3 times with exponential backoff (5 s, 10 s, 20 s), then FAILED', () => {
      const d = rendering();
      const delays: number[] = [];
      for (let retry = 1; retry <= 3; retry += 1) {
        const step = renderFailed(d);
        expect(step.state).toBe('RENDERING');
        expect(step.steps()).toEqual(['retry_scheduled', 'render_failed']);
        expect(d.pendingTimers()).toEqual(['retry:render']);
        delays.push(d.delayOf('retry:render'));
        expect(d.fire('retry:render').sent(RenderVideo)).toHaveLength(1);
      }
      expect(delays).toEqual([5_000, 10_000, 20_000]);
      expect(d.commandCount(RenderVideo)).toBe(4);
      const last = renderFailed(d);
      expect(last.state).toBe('FAILED');
      expect(last.view()).toMatchObject({ status: 'failed', error_code: 'render_failed', attempts: 4 });
    });

    it('when a render fails and is not retryable, then FAILED at once', () => {
      const step = renderFailed(rendering(), false);
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ error_code: 'render_failed', error_detail: 'ffmpeg exited 1' });
    });

    it('when a render times out, then it is retried; after the retries, FAILED render_timeout', () => {
      const d = rendering();
      for (let retry = 1; retry <= 3; retry += 1) {
        expect(d.fire(`resend:render:${retry}`).steps()).toEqual(['retry_scheduled', 'render_timed_out']);
        d.fire('retry:render');
      }
      const step = d.fire('resend:render:4');
      expect(step.state).toBe('FAILED');
      expect(step.view()).toMatchObject({ error_code: 'render_timeout' });
    });

    it('when a timed-out render finishes during the backoff, then SUCCEEDED', () => {
      const d = rendering();
      d.fire('resend:render:1');
      expect(rendered(d, {}, 0).state).toBe('SUCCEEDED');
      expect(d.pendingTimers()).toEqual([]);
    });

    it('when the render is for another solution, then refused', () => {
      const step = rendered(rendering(), { solutionAssetVersionId: uuid(0xbad) });
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('RENDERING');
    });

    it('when cancelled, then CANCELLED', () => {
      expect(rendering().cancel().state).toBe('CANCELLED');
    });

    it('when FAILED and started again with the same key, then attempt 2 renders anew', () => {
      const d = rendering();
      renderFailed(d, false);
      const again = d.start(START);
      expect(again.state).toBe('RENDERING');
      expect(again.applied.run?.attemptNo).toBe(2);
      expect(again.sent(RenderVideo)).toHaveLength(1);
    });
  });

  it('replays a run with a failure, a retry and a success', () => {
    const d = rendering();
    renderFailed(d);
    d.fire('retry:render');
    rendered(d);
    expect(replayRun(definition, { id: d.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null }, d.logs)).toEqual({
      ok: true,
      finalState: 'SUCCEEDED',
      mismatches: [],
    });
  });
});
