/** Trims, collapses spaces (spec S0) and compares case- and accent-insensitively. */
export function normalisePersonName(name: string): string {
  return name.trim().replace(/\s+/g, ' ');
}

export function nameKey(name: string): string {
  return normalisePersonName(name).normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

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
