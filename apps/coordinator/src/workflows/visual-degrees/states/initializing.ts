import { directQueries } from '@openpaw/contracts';
import { type Effect, RUN_DEADLINE_TIMER } from '@openpaw/saga';
import { verifyEdge } from '../commands.js';
import type { Run, VisualDecision } from '../outcomes.js';
import { status, withEvents } from '../stream-events.js';
import { VISUAL_DEGREES_PARAMETERS } from '../visual-degrees.model.js';
import type { VisualDegreesTimings } from '../visual-degrees.states.js';

const { threshold, imagesPerQuery } = VISUAL_DEGREES_PARAMETERS;

/** S0 → S1: the request normalised (init), limits and budgets fixed; A ↔ B asked for directly, the runtime budget armed. */
export function started(timings: VisualDegreesTimings, run: Run, now: Date): VisualDecision {
  const started = withEvents({ ...run.data, startedAt: now.toISOString() }, now, status('Starting investigation…'), status('Searching for direct visual connections…'));
  const sent = verifyEdge(timings, run, started, 'direct', run.data.from, run.data.to, directQueries(run.data.from.name, run.data.to.name));
  const deadline: Effect = { type: 'setTimer', name: RUN_DEADLINE_TIMER, afterMs: run.data.budgets.maxRuntimeMs };
  return {
    outcome: 'transition',
    to: 'DIRECT_EDGE',
    data: sent.data,
    step: 'direct_edge_requested',
    logs: [{ step: 'decision', payload: { decision: 'initialized', from: run.data.from.name, to: run.data.to.name, hop_limit: run.data.hopLimit, threshold, images_per_query: imagesPerQuery, budgets: { ...run.data.budgets } } }],
    effects: [...sent.effects, deadline],
  };
}
