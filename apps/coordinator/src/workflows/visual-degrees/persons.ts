import type { IdentifiedPerson, Person } from './visual-degrees.model.js';

export const identified = (person: Person): IdentifiedPerson | undefined => (person.celebrityId === undefined ? undefined : { name: person.name, celebrityId: person.celebrityId });

/** A person as a reply identified them (the reply's id wins; the name we asked with stays). */
export const learn = (known: Person, seen: Person): Person => (known.celebrityId === undefined && seen.celebrityId !== undefined ? { name: known.name, celebrityId: seen.celebrityId } : known);
