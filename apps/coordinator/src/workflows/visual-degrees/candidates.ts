import { fallbackOrder, personNameKey } from '@openpaw/contracts';
import type { Candidate, IdentifiedPerson, Person } from './visual-degrees.model.js';

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
 * never hidden; in the fallback order (meeting.ts puts those that meet the other chain first).
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
 * The candidate to verify from an S3 answer, with `candidates` in the order to try them (meeting.ts):
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
