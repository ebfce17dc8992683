import { isSamePerson } from './candidates.js';
import { type Chain, chainOf, hopsVerified, otherSide, withChain } from './chains.js';
import { pathUpdate, withEvents } from './stream-events.js';
import type { Candidate, IdentifiedPerson, Person, VisualDegreesData } from './visual-degrees.model.js';

/**
 * Meeting in the middle without reading the world: where a candidate of the side being grown meets
 * the other side's chain, learnt only from what discovery returned (issue 28's target-aware ranking;
 * nothing here may look at a graph the search did not see).
 *
 * - `on_chain`: the candidate is a node of the other chain (its end is the target as before; a node
 *   nearer the other root closes a shorter chain). Verifying frontier ↔ it closes the chain there.
 * - `seen_beside`: an earlier discovery from the other side saw the candidate beside one of that
 *   chain's nodes. Verifying frontier ↔ it, then bridging it ↔ that node, closes the chain.
 *
 * `at` is the node's index on the other chain (0 = that side's root): the lower, the shorter the chain.
 */
export interface Meeting {
  readonly kind: 'on_chain' | 'seen_beside';
  readonly at: number;
}

type D = VisualDegreesData;

const NO_SIGHTINGS: NonNullable<D['sightings']> = { from: {}, to: {} };

/** Records a discovery's candidates as seen beside the frontier of the side that discovered them. */
export function recordSightings(data: D, frontier: Person, candidates: readonly Candidate[]): D {
  if (data.strategy === 'one_sided' || frontier.celebrityId === undefined) return data;
  const sightings = data.sightings ?? NO_SIGHTINGS;
  const own = { ...sightings[data.side] };
  for (const candidate of candidates) own[candidate.person.celebrityId] ??= frontier.celebrityId;
  return { ...data, sightings: { ...sightings, [data.side]: own } };
}

function indexOnChain(chain: Chain, celebrityId: string): number {
  return chain.path.findIndex((p) => p.celebrityId === celebrityId);
}

/** Where `person`, a candidate of the side being grown, meets the other chain, if it does. */
export function meetingOf(data: D, person: IdentifiedPerson): Meeting | undefined {
  const other = chainOf(data, otherSide(data.side));
  const onChain = other.path.findIndex((p) => isSamePerson(p, person));
  if (onChain >= 0) return { kind: 'on_chain', at: onChain };
  const beside = (data.sightings ?? NO_SIGHTINGS)[otherSide(data.side)][person.celebrityId];
  if (beside === undefined) return undefined;
  const at = indexOnChain(other, beside);
  return at < 0 ? undefined : { kind: 'seen_beside', at };
}

/**
 * Candidates in the order to try them: those on the other chain first (the chain closes there), then
 * those seen beside it, each nearest the other root first (the shorter chain); the rest keep their
 * order (the spec's fallback ranking).
 */
export function meetingFirst(data: D, candidates: readonly Candidate[]): Candidate[] {
  const rank = (c: Candidate): number => {
    const meeting = meetingOf(data, c.person);
    return meeting === undefined ? Number.MAX_SAFE_INTEGER : (meeting.kind === 'on_chain' ? 0 : 1_000) + meeting.at;
  };
  return candidates
    .map((candidate, index) => ({ candidate, index, rank: rank(candidate) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((r) => r.candidate);
}

/**
 * The other chain cut back so that its node `at` is its end (what S5 bridges to, or where the chain
 * closes): the nodes after it leave the run's chains, and the client sees the shorter chain.
 */
export function otherChainCutTo(data: D, at: number, now: Date): D {
  const side = otherSide(data.side);
  const other = chainOf(data, side);
  if (at >= other.path.length - 1) return data;
  const cut = withChain(data, { path: other.path.slice(0, at + 1), edges: other.edges.slice(0, at) }, side);
  return withEvents(cut, now, pathUpdate(cut.path, hopsVerified(cut), cut.reversePath));
}
