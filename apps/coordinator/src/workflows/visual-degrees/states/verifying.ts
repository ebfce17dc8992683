import type { EdgeRefuted, EdgeVerified, MessageData } from '@openpaw/contracts';
import { clearPendingRetry } from '@openpaw/saga';
import { budgetReason, charge } from '../budgets.js';
import { isSamePerson } from '../candidates.js';
import { frontierOf, hopsVerified, otherEndOf } from '../chains.js';
import { anotherFrontier, bridge, extend, fail, ignore, isCurrent, type Run, select, type VisualDecision } from '../outcomes.js';
import { status, withEvents } from '../stream-events.js';
import type { VisualDegreesTimings } from '../visual-degrees.states.js';
import { targetReached } from './bridging.js';
import { meetingOf, otherChainCutTo } from '../meeting.js';

/**
 * S4 frontier ↔ X verified: X joins the chain → S5 X ↔ B, or S7; when X is on the other chain (the
 * target, or a node nearer its root), the chain is whole there → S6. When the other side's search saw X
 * beside one of its nodes, that node becomes the other chain's end, what S5 bridges to.
 */
export function intermediateVerified(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof EdgeVerified>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeVerified');
  const x = d.edge.to;
  const meeting = meetingOf(run.data, x);
  if (meeting?.kind === 'on_chain' || isSamePerson(x, otherEndOf(run.data))) {
    const closed = meeting === undefined ? run.data : otherChainCutTo(run.data, meeting.at, now);
    const done = targetReached(run, d, now, 'target_verified', closed);
    return done.outcome === 'transition' ? { ...done, effects: [...clearPendingRetry(run.data.step), ...(done.effects ?? [])] } : done;
  }
  const verified = extend(charge({ ...run.data, candidates: run.data.candidates.filter((c) => c.person.celebrityId !== x.celebrityId), verifying: null }, d.usage), d.edge, now);
  const data = meeting === undefined ? verified : otherChainCutTo(verified, meeting.at, now);
  const log = { step: 'decision', payload: { decision: 'edge_accepted', from: d.edge.from.name, to: x.name, edge_conf: d.edge.edgeConf, hop_depth: hopsVerified(data), cache_hit: d.usage.cacheHit } };
  const next = bridge(timings, run, data, now, 'intermediate_verified', [log]);
  return next.outcome === 'transition' || next.outcome === 'stay' ? { ...next, effects: [...clearPendingRetry(run.data.step), ...(next.effects ?? [])] } : next;
}

/** S4 frontier ↔ X refuted → S3 over the candidates left, S2 from another frontier, or S7. */
export function intermediateRefuted(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof EdgeRefuted>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale EdgeRefuted');
  let data = charge(run.data, d.usage);
  if (d.reason === 'budget_exhausted') return fail(data, budgetReason(d.budgetExhausted), 'budget spent verifying an intermediate', now, 'intermediate_refuted');
  const frontier = frontierOf(data);
  const x = data.verifying?.candidate;
  if (x !== undefined && frontier.celebrityId !== undefined) {
    data = { ...data, failedFrom: { ...data.failedFrom, [frontier.celebrityId]: [...(data.failedFrom[frontier.celebrityId] ?? []), x.celebrityId] } };
  }
  data = withEvents({ ...data, candidates: data.candidates.filter((c) => c.person.celebrityId !== x?.celebrityId), verifying: null }, now, status('Unable to verify this intermediate; trying another…'));
  const log = { step: 'decision', payload: { decision: 'candidate_failed', frontier: frontier.name, candidate: x?.name ?? null, candidates_left: data.candidates.length } };
  const next = data.candidates.length > 0 ? select(timings, run, data, now, 'intermediate_refuted', [log]) : anotherFrontier(timings, run, data, now, 'intermediate_refuted', false);
  return next.outcome === 'transition' ? { ...next, effects: [...clearPendingRetry(run.data.step), ...(next.effects ?? [])] } : next;
}
