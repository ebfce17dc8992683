import { type CandidatesDiscovered, type MessageData, personNameKey } from '@openpaw/contracts';
import { budgetReason, charge } from '../budgets.js';
import { targetAmong, usableCandidates } from '../candidates.js';
import { chainOf, everyone, frontierOf, otherEndOf, otherSide, withChain } from '../chains.js';
import { anotherFrontier, fail, ignore, isCurrent, type Run, select, type VisualDecision } from '../outcomes.js';
import { learn } from '../persons.js';
import type { VisualDegreesTimings } from '../visual-degrees.states.js';

/**
 * S2 the frontier's co-appearances → S3 over the usable ones (the target first when it is among them:
 * S3 picks it and S4 verifies it from this discovery's evidence); none: another frontier (S2), or S7.
 */
export function candidatesDiscovered(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof CandidatesDiscovered>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale CandidatesDiscovered');
  const frontier = learn(frontierOf(run.data), d.frontier);
  const chain = chainOf(run.data);
  let data = charge(withChain(run.data, { path: [...chain.path.slice(0, -1), frontier], edges: chain.edges }), d.usage);
  if (d.budgetExhausted !== undefined) return fail(data, budgetReason(d.budgetExhausted), 'budget spent on discovery', now, 'candidates_discovered');
  // The other end among them identifies it (and is the next step: its co-appearance is the last edge).
  const end = otherEndOf(data);
  const seen = d.candidates.find((c) => personNameKey(c.person.name) === personNameKey(end.name));
  if (seen !== undefined && end.celebrityId === undefined) {
    const other = chainOf(data, otherSide(data.side));
    data = withChain(data, { path: [...other.path.slice(0, -1), learn(end, seen.person)], edges: other.edges }, otherSide(data.side));
  }
  const excluded = new Set([...data.deadEnds, ...(frontier.celebrityId === undefined ? [] : (data.failedFrom[frontier.celebrityId] ?? []))]);
  const candidates = usableCandidates(d.candidates, { path: everyone(data), excluded, target: otherEndOf(data) });
  const log = { step: 'decision', payload: { decision: 'candidates', frontier: frontier.name, found: d.candidates.length, usable: candidates.map((c) => c.person.name), target_seen: targetAmong(candidates, otherEndOf(data)) !== undefined } };
  if (candidates.length === 0) {
    const next = anotherFrontier(timings, run, data, now, 'candidates_discovered', true);
    return next.outcome === 'stay' ? { ...next, logs: [log, ...(next.logs ?? [])] } : next;
  }
  return select(timings, run, { ...data, candidates }, now, 'candidates_discovered', [log]);
}
