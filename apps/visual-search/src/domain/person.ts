import { personNameKey } from '@openpaw/contracts';

/** A name's identity for comparison: the contracts' one, shared with the saga (S0 normalised, case- and accent-insensitive). */
export const nameKey = personNameKey;

export interface PersonRef {
  readonly name: string;
  readonly celebrityId?: string;
}

export interface IdentifiedPerson {
  readonly name: string;
  readonly celebrityId: string;
}

/**
 * Is this recognised face that person? By celebrity id when the person has one (names are not
 * identities: two people share a name, one person is spelled two ways); by name only until then.
 */
export function isPerson(face: { readonly celebrityId: string; readonly name: string }, person: PersonRef): boolean {
  return person.celebrityId !== undefined ? face.celebrityId === person.celebrityId : nameKey(face.name) === nameKey(person.name);
}
