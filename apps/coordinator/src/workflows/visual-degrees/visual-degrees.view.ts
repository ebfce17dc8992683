import type { VisualDegreesView } from '@openpaw/contracts';
import type { JsonObject, RunSnapshot } from '@openpaw/saga';
import { durationMs, statusOf } from '../shared/run-status.js';
import { hopsVerified } from './chains.js';
import type { VisualDegreesState } from './visual-degrees.states.js';
import type { VisualDegreesData } from './visual-degrees.model.js';

/** The run's public view: its chains, budgets, stream events and result or failure (the contract's `visualDegreesView`). */
export function visualDegreesViewOf(run: RunSnapshot<VisualDegreesState, VisualDegreesData>): JsonObject {
  const d = run.data;
  const final = d.events.find((e) => e.type === 'final');
  return {
    status: statusOf(run.state),
    state: run.state,
    from: d.from.name,
    to: d.to.name,
    hop_limit: d.hopLimit,
    hop_depth: hopsVerified(d),
    strategy: d.strategy,
    path: d.path.map((p) => p.name),
    ...(d.strategy === 'one_sided' ? {} : { reverse_path: d.reversePath.map((p) => p.name) }),
    budgets: { ...d.budgets },
    used: { ...d.used },
    duration_ms: durationMs(run, d.startedAt),
    events: d.events.map((e) => ({ ...e, data: { ...e.data } })),
    ...(final === undefined ? {} : { result: { ...final.data } }),
    ...(d.failure === null ? {} : { failure: failureOf(d.failure) }),
    ...(d.world === undefined ? {} : { world: { ...d.world } }),
  } satisfies VisualDegreesView;
}

function failureOf({ reason, detail, unknownNames, knownNames }: NonNullable<VisualDegreesData['failure']>): NonNullable<VisualDegreesView['failure']> {
  return { reason, detail, ...(unknownNames === undefined ? {} : { unknownNames: [...unknownNames] }), ...(knownNames === undefined ? {} : { knownNames: [...knownNames] }) };
}
