import { fallbackOrder, personNameKey } from '@openpaw/contracts';
import type { Candidate, IdentifiedPerson, Person } from './visual-degrees.model.js';

export function isSamePerson(person: Person, other: Person): boolean {
  if (person.celebrityId !== undefined && other.celebrityId !== undefined) return person.celebrityId === other.celebrityId;
  return personNameKey(person.name) === personNameKey(other.name);
}

export interface CandidateFilter {
  /** The chain so far (a candidate on it would make a cycle). */
  readonly path: readonly Person[];
  /** Ids never to propose: dead-end frontiers, candidates that failed from this frontier. */
  readonly excluded: ReadonlySet<string>;
  /** What the side aims at: never excluded, and first when seen (its co-appearance is the last edge). */
  readonly target: Person;
}

/**
 * S2's candidate set as the saga keeps it: one entry per celebrity id (the best figures win when a reply
 * lists one twice), nobody on the path or excluded, except the target, which is never hidden; the
 * target first, then the fallback order.
 */
export function usableCandidates(found: readonly Candidate[], filter: CandidateFilter): Candidate[] {
  const byId = new Map<string, Candidate>();
  for (const candidate of found) {
    const person = candidate.person;
    const target = isSamePerson(person, filter.target);
    if (!target && (filter.excluded.has(person.celebrityId) || filter.path.some((p) => isSamePerson(person, p)))) continue;
    const known = byId.get(person.celebrityId);
    if (known === undefined || fallbackOrder(candidate, known) < 0) byId.set(person.celebrityId, candidate);
  }
  const targetFirst = (c: Candidate): number => (isSamePerson(c.person, filter.target) ? 0 : 1);
  return [...byId.values()].sort((a, b) => targetFirst(a) - targetFirst(b) || fallbackOrder(a, b));
}

/** The target among the candidates, when discovery saw it beside the frontier. */
export function targetAmong(candidates: readonly Candidate[], target: Person): Candidate | undefined {
  return candidates.find((c) => isSamePerson(c.person, target));
}

/**
 * The candidate to verify from an S3 answer: the target when it is among `candidates` (whatever was
 * chosen: its edge ends the chain); else the first chosen one that is among them; when none is (the
 * LLM chose someone else), the fallback ranking's first.
 */
export function chosenCandidate(
  chosen: readonly IdentifiedPerson[],
  candidates: readonly Candidate[],
  target: Person,
): { readonly candidate: Candidate; readonly valid: boolean; readonly target: boolean } | undefined {
  const seen = targetAmong(candidates, target);
  if (seen !== undefined) return { candidate: seen, valid: true, target: true };
  for (const person of chosen) {
    const match = candidates.find((c) => c.person.celebrityId === person.celebrityId);
    if (match !== undefined) return { candidate: match, valid: true, target: false };
  }
  const first = [...candidates].sort(fallbackOrder)[0];
  return first === undefined ? undefined : { candidate: first, valid: false, target: false };
}
