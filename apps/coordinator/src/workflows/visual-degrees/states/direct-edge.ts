import type { EdgeRefuted, EdgeVerified, MessageData } from '@openpaw/contracts';
import { clearPendingRetry } from '@openpaw/saga';
import { budgetReason, charge } from '../budgets.js';
import { discover } from '../commands.js';
import { fail, ignore, isCurrent, type Run, succeed, type VisualDecision } from '../outcomes.js';
import { learn } from '../persons.js';
import type { VisualDegreesTimings } from '../visual-degrees.states.js';

/** S1 A ↔ B verified → S6. */
export function directEdgeVerified(run: Run, d: MessageData<typeof EdgeVerified>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeVerified');
  const from = learn(run.data.from, d.edge.from);
  const to = learn(run.data.to, d.edge.to);
  const data = charge({ ...run.data, from, to, path: [from], reversePath: [to] }, d.usage);
  return succeed(data, d.edge, now, 'direct_edge_verified');
}

/** S1 A ↔ B refuted → S2 (discover from A), or S7 when a budget is spent or the local demo world knows nobody by a name. */
export function directEdgeRefuted(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof EdgeRefuted>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeRefuted');
  const from = learn(run.data.from, d.from);
  const to = learn(run.data.to, d.to);
  const data = charge({ ...run.data, from, to, path: [from], reversePath: [to] }, d.usage);
  if (d.notInWorld !== undefined) {
    const unknown = { names: d.notInWorld.names, known: d.notInWorld.known };
    return fail(data, 'unknown_person', `not in the ${data.world?.description ?? 'local demo world'}: ${unknown.names.join(', ')}`, now, 'direct_edge_refuted', { unknown });
  }
  if (d.reason === 'budget_exhausted') return fail(data, budgetReason(d.budgetExhausted), 'budget spent on the direct attempt', now, 'direct_edge_refuted');
  const next = discover(timings, run, data, now);
  if ('failed' in next) return fail(data, next.failed, next.detail, now, 'direct_edge_refuted');
  return { outcome: 'transition', to: 'DISCOVERING', data: next.data, step: 'direct_edge_refuted', logs: next.logs, effects: [...clearPendingRetry(run.data.step), ...next.effects] };
}
