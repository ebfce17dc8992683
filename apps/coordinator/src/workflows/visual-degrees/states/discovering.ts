import type { CandidatesDiscovered, MessageData } from '@openpaw/contracts';
import { budgetReason, charge } from '../budgets.js';
import { usableCandidates } from '../candidates.js';
import { chainOf, everyone, frontierOf, otherEndOf, otherSide, withChain } from '../chains.js';
import { anotherFrontier, fail, ignore, isCurrent, type Run, select, type VisualDecision } from '../outcomes.js';
import { learn } from '../persons.js';
import { nameKey } from '../visual-degrees.model.js';
import type { VisualDegreesTimings } from '../visual-degrees.states.js';

/** S2 the frontier's co-appearances → S3 over the usable ones; none: another frontier (S2), or S7. */
export function candidatesDiscovered(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof CandidatesDiscovered>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale CandidatesDiscovered');
  const frontier = learn(frontierOf(run.data), d.frontier);
  const chain = chainOf(run.data);
  let data = charge(withChain(run.data, { path: [...chain.path.slice(0, -1), frontier], edges: chain.edges }), d.usage);
  if (d.budgetExhausted !== undefined) return fail(data, budgetReason(d.budgetExhausted), 'budget spent on discovery', now, 'candidates_discovered');
  // The other end among them identifies it (its edge is asked for directly in S5, never as an intermediate).
  const end = otherEndOf(data);
  const seen = d.candidates.find((c) => nameKey(c.person.name) === nameKey(end.name));
  if (seen !== undefined && end.celebrityId === undefined) {
    const other = chainOf(data, otherSide(data.side));
    data = withChain(data, { path: [...other.path.slice(0, -1), learn(end, seen.person)], edges: other.edges }, otherSide(data.side));
  }
  const excluded = new Set([...data.deadEnds, ...(frontier.celebrityId === undefined ? [] : (data.failedFrom[frontier.celebrityId] ?? []))]);
  const candidates = usableCandidates(d.candidates, { path: everyone(data), excluded, target: otherEndOf(data) });
  const log = { step: 'decision', payload: { decision: 'candidates', frontier: frontier.name, found: d.candidates.length, usable: candidates.map((c) => c.person.name) } };
  if (candidates.length === 0) {
    const next = anotherFrontier(timings, run, data, now, 'candidates_discovered', true);
    return next.outcome === 'stay' ? { ...next, logs: [log, ...(next.logs ?? [])] } : next;
  }
  return select(timings, run, { ...data, candidates }, now, 'candidates_discovered', [log]);
}
