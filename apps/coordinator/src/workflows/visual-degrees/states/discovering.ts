import { type CandidatesDiscovered, type MessageData, personNameKey } from '@openpaw/contracts';
import { budgetReason, charge } from '../budgets.js';
import { usableCandidates } from '../candidates.js';
import { chainOf, frontierOf, otherEndOf, otherSide, withChain } from '../chains.js';
import { meetingFirst, meetingOf, recordSightings } from '../meeting.js';
import { anotherFrontier, fail, ignore, isCurrent, notPublicFigureMessage, type Run, select, type VisualDecision } from '../outcomes.js';
import { learn } from '../persons.js';
import type { VisualDegreesTimings } from '../visual-degrees.states.js';

/**
 * S2 the frontier's co-appearances → S3 over the usable ones, those that meet the other chain first
 * (the target, or a node of the other chain, closes the chain: S3 picks it and S4 verifies it from this
 * discovery's evidence; one seen beside the other chain is a bridge away); none: another frontier (S2),
 * or S7. The co-appearances are remembered as this side's sightings, for the other side to meet.
 */
export function candidatesDiscovered(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof CandidatesDiscovered>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale CandidatesDiscovered');
  const frontier = learn(frontierOf(run.data), d.frontier);
  const chain = chainOf(run.data);
  let data = charge(withChain(run.data, { path: [...chain.path.slice(0, -1), frontier], edges: chain.edges }), d.usage);
  if (d.budgetExhausted !== undefined) return fail(data, budgetReason(d.budgetExhausted), 'budget spent on discovery', now, 'candidates_discovered');
  // Only public figures: on the real web, a person the run starts from whom none of the photos searched
  // for them showed at the threshold is not one the celebrity recogniser knows. No chain can start there,
  // so nothing more is searched for them (or anyone else). With no photo read at all, that is not known:
  // the search goes on. The local demo world refuses a name it does not know at S1 (`unknown_person`), so
  // there an unrecognised person is a photo missed, not a private person.
  const photosRead = d.usage.recognitionCalls + d.usage.imagesSkipped;
  if (data.world === undefined && chain.path.length === 1 && frontier.celebrityId === undefined && photosRead > 0) {
    return fail(data, 'not_a_public_figure', `${frontier.name}: not recognised in ${photosRead} photos of their discovery`, now, 'candidates_discovered', {
      message: notPublicFigureMessage(frontier.name, photosRead),
    });
  }
  // The other end among them identifies it (and is the next step: its co-appearance is the last edge).
  const end = otherEndOf(data);
  const seen = d.candidates.find((c) => personNameKey(c.person.name) === personNameKey(end.name));
  if (seen !== undefined && end.celebrityId === undefined) {
    const other = chainOf(data, otherSide(data.side));
    data = withChain(data, { path: [...other.path.slice(0, -1), learn(end, seen.person)], edges: other.edges }, otherSide(data.side));
  }
  const excluded = new Set([...data.deadEnds, ...(frontier.celebrityId === undefined ? [] : (data.failedFrom[frontier.celebrityId] ?? []))]);
  const usable = usableCandidates(d.candidates, { path: chainOf(data).path, excluded, otherChain: chainOf(data, otherSide(data.side)).path });
  data = recordSightings(data, frontier, usable);
  const candidates = meetingFirst(data, usable);
  const meeting = candidates[0] === undefined ? undefined : meetingOf(data, candidates[0].person);
  const log = {
    step: 'decision',
    payload: {
      decision: 'candidates',
      frontier: frontier.name,
      found: d.candidates.length,
      usable: candidates.map((c) => c.person.name),
      target_seen: meeting?.kind === 'on_chain',
      ...(meeting === undefined ? {} : { meets: { kind: meeting.kind, at: meeting.at } }),
    },
  };
  if (candidates.length === 0) {
    const next = anotherFrontier(timings, run, data, now, 'candidates_discovered', true);
    return next.outcome === 'stay' ? { ...next, logs: [log, ...(next.logs ?? [])] } : next;
  }
  return select(timings, run, { ...data, candidates }, now, 'candidates_discovered', [log]);
}
