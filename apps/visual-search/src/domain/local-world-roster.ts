import { personNameKey, type VisualWorldInfo } from '@openpaw/contracts';

/**
 * What the service tells of the local demo world it searches (the offline default): what it is, and
 * the names it knows. Never its photos or who appears with whom: nothing here helps a search.
 */
export interface LocalWorldRoster {
  readonly info: VisualWorldInfo;
  /** Every person's name, sorted. */
  readonly names: readonly string[];
}

/** The roster of a generated world: its description derives from how many people it holds. */
export function localWorldRoster(world: { readonly seed: number; readonly people: readonly { readonly name: string }[] }): LocalWorldRoster {
  const people = world.people.length;
  return {
    info: { kind: 'local_demo', seed: world.seed, people, description: `local demo world of ${people} invented people` },
    names: world.people.map((p) => p.name).sort((a, b) => a.localeCompare(b)),
  };
}

/** The names (as asked) the roster does not know, compared as persons are (`personNameKey`). */
export function namesNotIn(roster: LocalWorldRoster, names: readonly string[]): string[] {
  const known = new Set(roster.names.map(personNameKey));
  return names.filter((name) => !known.has(personNameKey(name)));
}

/** The `world` field of a step's reply: absent on the real web. */
export function worldOf(roster: LocalWorldRoster | undefined): { world?: VisualWorldInfo } {
  return roster === undefined ? {} : { world: roster.info };
}
