import type { DocumentMaths } from '../problem-catalog.js';

/** One unknown of the stored problem and the asker's name for it. */
export interface Relabel {
  readonly from: string;
  readonly to: string;
}

/**
 * How an indexed problem's maths relates to the query's (issue 24):
 * - `same`: the same maths in the same names (the identity bijection); its solution serves as it is;
 * - `renamed`: the same maths and asked-for unknown under a non-identity bijection of the unknowns,
 *   `relabel` (stored name → asker's name, one entry per unknown); its solution is written in other names;
 * - `other`: other maths, another asked-for unknown, or no names to map through.
 */
export type MathsRelation =
  | { readonly kind: 'same' }
  | { readonly kind: 'renamed'; readonly relabel: readonly Relabel[] }
  | { readonly kind: 'other'; readonly why: string };

/** Signature versions whose hash holds the unknowns' names: one hash there is one problem in one set of names. */
const NAMED_HASH_VERSIONS = new Set(['maths-sig/v1', 'maths-sig/v2']);

/**
 * The relation of an indexed problem's maths to the query's. From maths-sig/v3 the hash is name-free
 * (the asked-for unknown as its canonical index), so one hash is one problem up to a renaming, and the
 * bijection is `stored.unknowns[i] ↦ query.unknowns[i]` (both in canonical order). A hash under an
 * older version is never compared (see the maths stage).
 */
export function mathsRelation(query: DocumentMaths, stored: DocumentMaths): MathsRelation {
  if (stored.hash !== query.hash) return { kind: 'other', why: `its maths ${stored.canonical} (${stored.intent}) is not the query's ${query.canonical} (${query.intent})` };
  if (query.version !== undefined && NAMED_HASH_VERSIONS.has(query.version)) return { kind: 'same' };
  const [from, to] = [stored.unknowns, query.unknowns];
  if (from === undefined || to === undefined || from.length !== to.length) return { kind: 'other', why: 'the same maths, but without the unknowns\u2019 names to map one problem onto the other' };
  const relabel = from.map((name, i) => ({ from: name, to: to[i] ?? name }));
  return relabel.every((r) => r.from === r.to) ? { kind: 'same' } : { kind: 'renamed', relabel };
}

/** "x → k, y → m", for a trace. */
export function describeRelabel(relabel: readonly Relabel[]): string {
  return relabel.map((r) => `${r.from} → ${r.to}`).join(', ');
}
