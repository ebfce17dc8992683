import { type EdgeRefuted, type EdgeVerified, edgeConfidence, fallbackOrder, type MessageData, personNameKey } from '@openpaw/contracts';
import { type Candidate, hopsVerified, type IdentifiedPerson, type Person, type VerifiedEdge, type VisualDegreesData } from './visual-degrees.data.js';
import { pathUpdate, REMOVED, withEvents } from './visual-degrees.view.js';

/**
 * The verified chains of a run: one grown from `from` (path, edges) and, when the search meets in the
 * middle, one grown from `to` (reversePath, reverseEdges; edge i joins reversePath[i] to reversePath[i+1]).
 * The side being expanded is `side`; the other chain's last node is what S3 aims at and S5 bridges to.
 * One-sided (spec 03's MVP), the `to` chain is just `[to]`.
 */
export type Side = VisualDegreesData['side'];

export interface Chain {
  readonly path: readonly Person[];
  readonly edges: readonly VerifiedEdge[];
}

export function chainOf(data: VisualDegreesData, side: Side = data.side): Chain {
  return side === 'from' ? { path: data.path, edges: data.edges } : { path: data.reversePath, edges: data.reverseEdges };
}

export function withChain(data: VisualDegreesData, chain: Chain, side: Side = data.side): VisualDegreesData {
  const ends = chain.path.length === 1 ? (side === 'from' ? { from: chain.path[0] ?? data.from } : { to: chain.path[0] ?? data.to }) : {};
  return side === 'from' ? { ...data, ...ends, path: chain.path, edges: chain.edges } : { ...data, ...ends, reversePath: chain.path, reverseEdges: chain.edges };
}

export const otherSide = (side: Side): Side => (side === 'from' ? 'to' : 'from');

/** The node the current side expands from. */
export function frontierOf(data: VisualDegreesData): Person {
  return chainOf(data).path.at(-1) ?? (data.side === 'from' ? data.from : data.to);
}

/** What the current side aims at: the other chain's last node (`to`, one-sided). */
export function otherEndOf(data: VisualDegreesData): Person {
  return chainOf(data, otherSide(data.side)).path.at(-1) ?? (data.side === 'from' ? data.to : data.from);
}

export function everyone(data: VisualDegreesData): Person[] {
  return [...data.path, ...data.reversePath];
}

/** The edge read the other way (from and to swapped, with their confidences). */
export function flipEdge(edge: VerifiedEdge): VerifiedEdge {
  return {
    from: edge.to,
    to: edge.from,
    edgeConf: edge.edgeConf,
    evidence: edge.evidence.map((image) => ({ ...image, confidenceFrom: image.confidenceTo, confidenceTo: image.confidenceFrom })),
  };
}

/**
 * The whole chain from `from` to `to` once `bridge` joins the current side's frontier to the other end:
 * the `from` chain, the bridge, then the `to` chain backwards with its edges read forwards.
 */
export function joined(data: VisualDegreesData, bridge: VerifiedEdge): Chain {
  const forwardBridge = data.side === 'from' ? bridge : flipEdge(bridge);
  return {
    path: [...data.path, ...[...data.reversePath].reverse()],
    edges: [...data.edges, forwardBridge, ...[...data.reverseEdges].reverse().map(flipEdge)],
  };
}

export function isSamePerson(person: Person, other: Person): boolean {
  if (person.celebrityId !== undefined && other.celebrityId !== undefined) return person.celebrityId === other.celebrityId;
  return personNameKey(person.name) === personNameKey(other.name);
}

export interface CandidateFilter {
  /** The chain of the side being grown (a candidate on it would make a cycle). */
  readonly path: readonly Person[];
  /** Ids never to propose: dead-end frontiers, candidates that failed from this frontier. */
  readonly excluded: ReadonlySet<string>;
  /** The other side's chain: never hidden (seen beside the frontier, its node closes the chain there). */
  readonly otherChain: readonly Person[];
}

/**
 * S2's candidate set as the saga keeps it: one entry per celebrity id (the best figures win when a reply
 * lists one twice), nobody on the side's own chain or excluded, except the other chain's nodes, which are
 * never hidden; in the fallback order (`meetingFirst`, below, puts those that meet the other chain first).
 */
export function usableCandidates(found: readonly Candidate[], filter: CandidateFilter): Candidate[] {
  const byId = new Map<string, Candidate>();
  for (const candidate of found) {
    const person = candidate.person;
    const meets = filter.otherChain.some((p) => isSamePerson(person, p));
    if (!meets && (filter.excluded.has(person.celebrityId) || filter.path.some((p) => isSamePerson(person, p)))) continue;
    const known = byId.get(person.celebrityId);
    if (known === undefined || fallbackOrder(candidate, known) < 0) byId.set(person.celebrityId, candidate);
  }
  return [...byId.values()].sort(fallbackOrder);
}

/**
 * The candidate to verify from an S3 answer, with `candidates` in the order to try them (`meetingFirst`):
 * the first when it meets the other chain (whatever was chosen: it closes the chain, or brings it one
 * bridge away); else the first chosen one that is among them; when none is (the LLM chose someone
 * else), the first in order, which is the fallback ranking's.
 */
export function chosenCandidate(
  chosen: readonly IdentifiedPerson[],
  candidates: readonly Candidate[],
  meets: (person: IdentifiedPerson) => boolean,
): { readonly candidate: Candidate; readonly valid: boolean; readonly meets: boolean } | undefined {
  const first = candidates[0];
  if (first !== undefined && meets(first.person)) return { candidate: first, valid: true, meets: true };
  for (const person of chosen) {
    const match = candidates.find((c) => c.person.celebrityId === person.celebrityId);
    if (match !== undefined) return { candidate: match, valid: true, meets: false };
  }
  return first === undefined ? undefined : { candidate: first, valid: false, meets: false };
}

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

/** Where a refuted bridge saw the chains meet (`meetingInBridge`): the node to discover from and the search to read again. */
export interface BridgeMeeting {
  readonly side: Side;
  readonly at: number;
  readonly query: string;
}

/**
 * Where a refuted bridge (S5, X ↔ the other chain's end E) saw the two chains meet: its photos are of
 * X and of E, each with their own company, and one may show X (at the threshold) beside a node of the
 * other chain before E, or E beside a node of X's chain before X. Then that node, not X, is the one to
 * discover from: `side` and `at` name it (0 = that side's root), `query` is the bridge's search, which
 * the service answers again from the run's memory at no search and no recognition. That discovery
 * verifies the pair by the spec's rule (both at the threshold: the photo's other face may be blurred,
 * and `shows` names faces at any confidence), and S3/S4 close the chain through it as any meeting on
 * the chain. When several photos meet, the shortest chain wins. Undefined when none does, or one-sided
 * (no chain grows from B). Nothing but the bridge's own photos is read.
 */
export function meetingInBridge(data: D, photos: MessageData<typeof EdgeRefuted>['partialEvidence'], threshold: number): BridgeMeeting | undefined {
  if (data.strategy === 'one_sided') return undefined;
  // X (the bridge's `from`) beside the other chain; E (its `to`) beside X's own chain. Each chain's end is
  // the bridge's other end, refuted: only the nodes before it.
  const end = (seen: (photo: (typeof photos)[number]) => number | null | undefined, side: Side) => ({
    seen,
    side,
    nodes: chainOf(data, side).path.slice(0, -1),
    across: chainOf(data, otherSide(side)).edges.length,
  });
  const ends = [end((photo) => photo.confidenceFrom, otherSide(data.side)), end((photo) => photo.confidenceTo, data.side)];
  let best: (BridgeMeeting & { readonly hops: number }) | undefined;
  for (const photo of photos) {
    const shows = new Set(photo.shows ?? []);
    for (const { seen, side, nodes, across } of ends) {
      if ((seen(photo) ?? 0) < threshold) continue;
      nodes.forEach((node, at) => {
        const hops = at + 1 + across;
        if (node.celebrityId !== undefined && shows.has(node.celebrityId) && (best === undefined || hops < best.hops)) best = { side, at, query: photo.query, hops };
      });
    }
  }
  return best === undefined ? undefined : { side: best.side, at: best.at, query: best.query };
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

/**
 * A running run's chains and candidates without a person taken down, on data already redacted
 * (`redactPerson`): an edge to or from them, or whose every photo was removed (a photo that showed them
 * is no evidence any more), cuts its chain back to the node before it; an edge keeps its other photos,
 * its confidence recomputed from them. They leave the candidates and the sightings, and join the dead
 * ends (no later discovery proposes them) and `takenDown` (no later reply's photo shows them). `cut`: a chain lost a node (the work in flight may be
 * about a node no longer on it).
 */
export function withoutPerson(data: D, celebrityId: string): { readonly data: D; readonly cut: boolean } {
  let cut = false;
  let pruned = data;
  for (const side of ['from', 'to'] as const) {
    const chain = chainOf(pruned, side);
    const edges: VerifiedEdge[] = [];
    for (const edge of chain.edges) {
      const photos = edge.evidence.filter((image) => image.imageUrl !== REMOVED);
      if (edge.from.celebrityId === celebrityId || edge.to.celebrityId === celebrityId || photos.length === 0) break;
      edges.push(photos.length === edge.evidence.length ? edge : { ...edge, evidence: photos, edgeConf: edgeConfidence(photos) });
    }
    if (edges.length < chain.edges.length) cut = true;
    pruned = withChain(pruned, { path: chain.path.slice(0, edges.length + 1), edges }, side);
  }
  const sightings = pruned.sightings ?? NO_SIGHTINGS;
  const unseen = (seen: Readonly<Record<string, string>>): Record<string, string> => Object.fromEntries(Object.entries(seen).filter(([who, beside]) => who !== celebrityId && beside !== celebrityId));
  return {
    cut,
    data: {
      ...pruned,
      candidates: pruned.candidates.filter((c) => c.person.celebrityId !== celebrityId),
      verifying: pruned.verifying?.candidate.celebrityId === celebrityId ? null : pruned.verifying,
      deadEnds: pruned.deadEnds.includes(celebrityId) ? pruned.deadEnds : [...pruned.deadEnds, celebrityId],
      takenDown: [...new Set([...(pruned.takenDown ?? []), celebrityId])],
      sightings: { from: unseen(sightings.from), to: unseen(sightings.to) },
      // A direct attempt's queries that named them would be searched again as "… [removed]".
      directSearches: (pruned.directSearches ?? []).filter((search) => !search.queries.some((query) => query.includes(REMOVED))),
    },
  };
}

/**
 * An `EdgeVerified` reply read as if the service had known every takedown the run has seen: a reply
 * made during the service's takedown-list refresh (30 s) may picture a person already taken down, and
 * such a photo is no evidence. The edge keeps its other photos (its confidence recomputed from them);
 * with none left, or with an end taken down, the reply refutes the edge (no evidence), so the run cuts
 * it rather than keeping an edge whose only picture reads "[removed]".
 */
export function verifiedWithoutTakenDown(
  data: D,
  reply: MessageData<typeof EdgeVerified>,
): { readonly verified: MessageData<typeof EdgeVerified> } | { readonly refuted: MessageData<typeof EdgeRefuted> } {
  const takenDown = new Set(data.takenDown ?? []);
  if (takenDown.size === 0) return { verified: reply };
  const { edge } = reply;
  const pictured = (image: VerifiedEdge['evidence'][number]): readonly string[] => image.shows ?? [edge.from.celebrityId, edge.to.celebrityId];
  const photos = edge.evidence.filter((image) => !pictured(image).some((who) => takenDown.has(who)));
  if (photos.length === edge.evidence.length && !takenDown.has(edge.from.celebrityId) && !takenDown.has(edge.to.celebrityId)) return { verified: reply };
  if (photos.length === 0 || takenDown.has(edge.from.celebrityId) || takenDown.has(edge.to.celebrityId)) {
    const { edge: _edge, ...rest } = reply;
    return { refuted: { ...rest, from: edge.from, to: edge.to, reason: 'no_evidence', partialEvidence: [] } };
  }
  return { verified: { ...reply, edge: { ...edge, evidence: photos, edgeConf: edgeConfidence(photos) } } };
}
