import { type ResearchProvider, ResearchLegCompleted, ResearchLegFailed, ResearchLegStarted } from '@openpaw/contracts';
import { commandIdFor, type Effect, onEvent, onTimer, type Row, RUN_DEADLINE_TIMER, type RunSnapshot, type StepLogEntry } from '@openpaw/saga';
import { roundUsd } from '../shared/run-status.js';
import { isOpen, type Leg, type ResearchData, withLeg } from './research.data.js';
import { isDeadlineOf, LEG_CAP_TIMER, legCapTimer, legKey } from './research.ids.js';
import type { ResearchOutcomes } from './research.outcomes.js';
import type { ResearchTimings } from './research.timings.js';
import type { ResearchState } from './research.transitions.js';
import { ignore } from './research.shared-rows.js';

type S = ResearchState;
type D = ResearchData;
type Run = RunSnapshot<S, D>;

/** The rows of a leg's life (started, completed, failed, timed out, the phase deadline), shared by processing and retrying. */
export function researchLegRows(timings: ResearchTimings, outcomes: ResearchOutcomes) {
  const { afterLegResult, legFailed } = outcomes;

  /** The open leg a reply answers (its index, provider, round and command id all match), if any. */
  const openLeg = (run: Run, reply: { readonly legIndex: number; readonly provider: ResearchProvider; readonly round: number; readonly commandId: string }): Leg | undefined => {
    const leg = run.data.legs[reply.legIndex];
    if (leg === undefined || !isOpen(leg) || leg.provider !== reply.provider || leg.round !== reply.round) return undefined;
    return commandIdFor(run.id, run.attemptNo, legKey(reply.legIndex, reply.round)) === reply.commandId ? leg : undefined;
  };

  const legStarted = (to: readonly S[]): Row<S, D> =>
    onEvent<S, D, typeof ResearchLegStarted>(ResearchLegStarted, to, (run, { data: r }) => {
      const leg = openLeg(run, r);
      if (leg === undefined || leg.status !== 'pending') return ignore('stale ResearchLegStarted');
      const d = withLeg(run.data, r.legIndex, { ...leg, status: 'processing', startedAt: r.startedAt });
      const effects: Effect[] = [{ type: 'setTimer', name: legCapTimer(r.legIndex, r.round), afterMs: timings.legCapMs + timings.replyGraceMs }];
      // Retried legs are picked up: back to LLM processing.
      return run.state === 'retrying'
        ? { outcome: 'transition', to: 'processing', data: d, step: 'leg_started', effects }
        : { outcome: 'stay', data: d, step: 'leg_started', effects };
    });

  const settling: readonly S[] = ['synthesizing', 'completed', 'awaiting_confirmation', 'failed'];

  const legCompleted = (to: readonly S[]): Row<S, D> =>
    onEvent<S, D, typeof ResearchLegCompleted>(ResearchLegCompleted, to, (run, { data: r }, { now }) => {
      const leg = openLeg(run, r);
      if (leg === undefined) return ignore('stale ResearchLegCompleted');
      const done: Leg = {
        ...leg,
        status: 'completed',
        model: r.model,
        content: r.content,
        truncated: r.truncated,
        local: r.local,
        error: null,
        errorReason: null,
        startedAt: leg.startedAt ?? now.toISOString(),
        completedAt: now.toISOString(),
        costUsd: roundUsd(leg.costUsd + r.costUsd),
      };
      const log: StepLogEntry = { step: 'leg_completed', payload: { leg: r.legIndex, provider: r.provider, round: r.round, model: r.model, local: r.local, cost_usd: r.costUsd, latency_ms: r.latencyMs } };
      return afterLegResult(run, withLeg(run.data, r.legIndex, done), now, 'leg_result', [{ type: 'clearTimer', name: legCapTimer(r.legIndex, r.round) }], [log]);
    });

  const legFailedRow = (to: readonly S[]): Row<S, D> =>
    onEvent<S, D, typeof ResearchLegFailed>(ResearchLegFailed, to, (run, { data: r }, { now }) => {
      const leg = openLeg(run, r);
      if (leg === undefined) return ignore('stale ResearchLegFailed');
      return legFailed(run, r.legIndex, leg, r.reason, r.detail, r.costUsd, now, 'leg_result', [{ type: 'clearTimer', name: legCapTimer(r.legIndex, r.round) }]);
    });

  /** The coordinator's backstop: no reply within the leg's cap (+ grace) from its pickup. */
  const legTimedOut = (to: readonly S[]): Row<S, D> =>
    onTimer<S, D>(LEG_CAP_TIMER, to, (run, timer, { now }) => {
      const match = /^legcap:(\d+):(\d+)$/.exec(timer.name);
      const index = Number(match?.[1]);
      const leg = match === null ? undefined : run.data.legs[index];
      if (leg === undefined || !isOpen(leg) || leg.round !== Number(match?.[2])) return ignore('stale leg timeout');
      return legFailed(run, index, leg, 'timeout', `no answer within the leg's cap of ${timings.legCapMs} ms`, 0, now, 'leg_timed_out', []);
    });

  /** The phase deadline: every leg still open fails, then the matrix decides (no leg outlives it). */
  const legsDeadline = (to: readonly S[]): Row<S, D> =>
    onTimer<S, D>(RUN_DEADLINE_TIMER, to, (run, timer, { now }) => {
      if (!isDeadlineOf(timer, 'legs', run.data.retryCount + 1)) return ignore('stale deadline');
      const detail = `not finished within the run deadline of ${timings.phaseDeadlineMs} ms`;
      const legs = run.data.legs.map((l) => (isOpen(l) ? { ...l, status: 'failed' as const, error: detail, errorReason: 'timeout' as const, completedAt: now.toISOString() } : l));
      const expired = run.data.legs.flatMap((l, i) => (isOpen(l) ? [i] : []));
      const log: StepLogEntry = { step: 'deadline_passed', payload: { phase: 'legs', legs: expired } };
      const caps: Effect[] = expired.map((i) => ({ type: 'clearTimer', name: legCapTimer(i, run.data.legs[i]?.round ?? 0) }));
      return afterLegResult(run, { ...run.data, legs }, now, 'deadline_passed', caps, [log]);
    });

  return { legStarted, settling, legCompleted, legFailedRow, legTimedOut, legsDeadline };
}
