import { type CandidatesDiscovered, type DiscoverCandidates, type EdgeRefuted, type EdgeVerified, type ExpansionSelected, type MessageData, personNameKey, verificationQueries } from '@openpaw/contracts';
import { clearPendingRetry } from '@openpaw/saga';
import { chainOf, chosenCandidate, frontierOf, isSamePerson, meetingFirst, meetingOf, otherChainCutTo, otherEndOf, otherSide, recordSightings, usableCandidates, withChain } from './visual-degrees.chains.js';
import { deeperDiscovery, discover, verifyEdge } from './visual-degrees.commands.js';
import { budgetReason, charge, hopsVerified, learn, searchBudgetSpent, type VisualDegreesTimings } from './visual-degrees.data.js';
import { targetReached } from './visual-degrees.direct.js';
import { anotherFrontier, bridge, extend, fail, ignore, isCurrent, notPublicFigureMessage, type Run, select, type VisualDecision } from './visual-degrees.outcomes.js';
import { status, withEvents } from './visual-degrees.view.js';

/**
 * The rows of the expansion (spec 03 S2 discovery, S3 the choice, S4 frontier ↔ the chosen
 * intermediate): who co-appears with the frontier, which of them to try, and whether the edge holds.
 * The definition's table (visual-degrees.definition.ts) routes their replies here.
 */

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
  // One-sided, B's side is discovered only to check B (`directEdgeRefuted`): recognised, the chain grows from A.
  if (data.strategy === 'one_sided' && data.side === 'to') {
    const fromA = discover(timings, run, { ...data, side: 'from' }, now);
    if ('failed' in fromA) return fail(data, fromA.failed, fromA.detail, now, 'candidates_discovered');
    const checked = { step: 'decision', payload: { decision: 'public_figure_checked', person: frontier.name, photos: photosRead } };
    return { outcome: 'stay', data: fromA.data, step: 'candidates_discovered', logs: [checked, ...fromA.logs], effects: fromA.effects };
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
    const asked = (run.data.command?.data as Partial<MessageData<typeof DiscoverCandidates>> | undefined)?.queries ?? [];
    const deeper = searchBudgetSpent(data) === undefined ? deeperDiscovery(data, frontier, asked, photosRead) : undefined;
    const again = deeper === undefined ? undefined : discover(timings, run, data, now, { queries: deeper, why: 'deeper' });
    if (again !== undefined && !('failed' in again)) return { outcome: 'stay', data: again.data, step: 'candidates_discovered', logs: [log, ...again.logs], effects: again.effects };
    const next = anotherFrontier(timings, run, data, now, 'candidates_discovered', true);
    return next.outcome === 'stay' ? { ...next, logs: [log, ...(next.logs ?? [])] } : next;
  }
  return select(timings, run, { ...data, candidates }, now, 'candidates_discovered', [log]);
}

/** S3 the LLM picked the next expansion (strict JSON; the service falls back on invalid output) → S4 frontier ↔ X, or S7. */
export function expansionSelected(timings: VisualDegreesTimings, run: Run, d: MessageData<typeof ExpansionSelected>, now: Date): VisualDecision {
  if (!isCurrent(run, d.commandId)) return ignore('stale ExpansionSelected');
  const data = charge(run.data, { llmCalls: d.usage.llmCalls, costUsd: d.usage.costUsd });
  const chosen = chosenCandidate(d.nextCandidates, data.candidates, (person) => meetingOf(data, person) !== undefined);
  if (chosen === undefined) return fail(data, 'no_candidates', 'no candidate to verify', now, 'expansion_selected');
  // A candidate that meets the other chain (the target, a node of that chain, or one seen beside it)
  // is the choice, whatever the reply says; a choice outside the candidates is not followed: the
  // spec's fallback ranking decides instead.
  const meeting = chosen.meets ? meetingOf(data, chosen.candidate.person) : undefined;
  const decidedBy = meeting?.kind === 'on_chain' ? 'target' : meeting !== undefined ? 'meeting' : chosen.valid ? d.decidedBy : 'fallback';
  const fallbackReason = meeting !== undefined ? undefined : chosen.valid ? d.fallbackReason : 'invalid_choice';
  const frontier = frontierOf(data);
  const x = chosen.candidate.person;
  const queries = decidedBy === 'llm' && d.searchQueries.length > 0 ? d.searchQueries.slice(0, 2) : verificationQueries(frontier.name, x.name);
  const narration =
    decidedBy === 'llm' && d.narration.trim() !== ''
      ? d.narration
      : meeting?.kind === 'on_chain'
        ? `${x.name} was seen beside ${frontier.name}; verifying that edge…`
        : meeting !== undefined
          ? `${x.name} was seen beside ${frontier.name} and on the other side's search; verifying that edge…`
          : `Trying an expansion via ${x.name}…`;
  const spent = searchBudgetSpent(data);
  if (spent !== undefined) return fail(data, spent, 'no budget left to verify a candidate', now, 'expansion_selected');
  const sent = verifyEdge(timings, run, withEvents({ ...data, verifying: { candidate: x, queries } }, now, status(narration)), 'verify', frontier, x, queries);
  return {
    outcome: 'transition',
    to: 'VERIFYING',
    data: sent.data,
    step: 'expansion_selected',
    logs: [{ step: 'decision', payload: { decision: 'expansion', decided_by: decidedBy, ...(fallbackReason === undefined ? {} : { fallback_reason: fallbackReason }), candidate: x.name, queries, narration: d.narration } }],
    effects: [...clearPendingRetry(run.data.step), ...sent.effects],
  };
}

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
