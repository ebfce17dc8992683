import { type Candidate, type IdentifiedPerson, nameKey, type Person } from './visual-degrees.model.js';

/**
 * The spec's deterministic fallback ranking (S3, when the LLM's output is not usable): highest
 * `bestConfWithFrontier`, tie broken by `count`; the celebrity id breaks what remains, so the order
 * never depends on arrival order.
 */
export function fallbackOrder(a: Candidate, b: Candidate): number {
  return b.bestConfWithFrontier - a.bestConfWithFrontier || b.count - a.count || a.person.celebrityId.localeCompare(b.person.celebrityId);
}

export function isSamePerson(person: Person, other: Person): boolean {
  if (person.celebrityId !== undefined && other.celebrityId !== undefined) return person.celebrityId === other.celebrityId;
  return nameKey(person.name) === nameKey(other.name);
}

export interface CandidateFilter {
  /** The chain so far (a candidate on it would make a cycle). */
  readonly path: readonly Person[];
  /** Ids never to propose: dead-end frontiers, candidates that failed from this frontier. */
  readonly excluded: ReadonlySet<string>;
  /** The target: a candidate that is the target is not an intermediate (S5 asks for that edge directly). */
  readonly target: Person;
}

/**
 * S2's candidate set as the saga keeps it: one entry per celebrity id (the best figures win when a reply
 * lists one twice), nobody on the path, excluded, or the target; in the fallback order.
 */
export function usableCandidates(found: readonly Candidate[], filter: CandidateFilter): Candidate[] {
  const byId = new Map<string, Candidate>();
  for (const candidate of found) {
    const person = candidate.person;
    if (filter.excluded.has(person.celebrityId) || isSamePerson(person, filter.target) || filter.path.some((p) => isSamePerson(person, p))) continue;
    const known = byId.get(person.celebrityId);
    if (known === undefined || fallbackOrder(candidate, known) < 0) byId.set(person.celebrityId, candidate);
  }
  return [...byId.values()].sort(fallbackOrder);
}

/**
 * The candidate to verify from an S3 answer: the first chosen one that is among `candidates`; when none
 * is (the LLM chose someone else), the fallback ranking's first.
 */
export function chosenCandidate(chosen: readonly IdentifiedPerson[], candidates: readonly Candidate[]): { readonly candidate: Candidate; readonly valid: boolean } | undefined {
  for (const person of chosen) {
    const match = candidates.find((c) => c.person.celebrityId === person.celebrityId);
    if (match !== undefined) return { candidate: match, valid: true };
  }
  const first = [...candidates].sort(fallbackOrder)[0];
  return first === undefined ? undefined : { candidate: first, valid: false };
}
