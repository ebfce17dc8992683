import type { EdgeRefuted, EdgeVerified, MessageData } from '@openpaw/contracts';
import { clearPendingRetry } from '@openpaw/saga';
import { budgetReason, charge } from '../budgets.js';
import { chainOf, otherEndOf, otherSide, withChain } from '../chains.js';
import { discoverWithinHops } from '../commands.js';
import { fail, ignore, isCurrent, nextSide, type Run, succeed, type VisualDecision } from '../outcomes.js';
import { learn } from '../persons.js';
import { status, withEvents } from '../stream-events.js';
import type { VisualDegreesTimings } from '../visual-degrees.states.js';

/**
 * S5 X ↔ B verified → S6 (also S4 when X was on the other chain, seen beside the frontier in S2: `ended`
 * is the run's data with that chain ending at X).
 */
export function targetReached(run: Run, d: MessageData<typeof EdgeVerified>, now: Date, stepName = 'target_reached', ended = run.data): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeVerified');
  const other = chainOf(ended, otherSide(ended.side));
  const end = learn(otherEndOf(ended), d.edge.to);
  const data = charge(withChain(ended, { path: [...other.path.slice(0, -1), end], edges: other.edges }, otherSide(ended.side)), d.usage);
  return succeed({ ...data, candidates: [], verifying: null }, d.edge, now, stepName);
}

/** S5 X ↔ B refuted → S2 expanding again, stepping a chain back when the hop depth does not allow it (commands.ts), else S7. */
export function bridgeRefuted(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof EdgeRefuted>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeRefuted');
  const data = withEvents(charge(run.data, d.usage), now, status('No direct edge found; expanding again…'));
  if (d.reason === 'budget_exhausted') return fail(data, budgetReason(d.budgetExhausted), 'budget spent bridging toward the target', now, 'bridge_refuted');
  const next = discoverWithinHops(timings, run, { ...data, side: nextSide(data) }, now);
  if ('failed' in next) return fail(data, next.failed, next.detail, now, 'bridge_refuted');
  return { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: 'bridge_refuted', logs: next.logs, effects: [...clearPendingRetry(run.data.step), ...next.effects] };
}
