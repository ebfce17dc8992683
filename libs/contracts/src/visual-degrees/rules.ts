/**
 * Spec 03's rules that the visual_degrees saga and the visual-search service must agree on, in one
 * place (they had drifted: the bench measured other queries than the product ran): the query
 * templates, the confidence maths and the deterministic fallback ranking. Name normalisation is
 * `normalisePersonName` / `personNameKey` in `messages/visual-degrees.ts`. Pure functions, no I/O.
 */

/** S1 and S5: is there a photo of both? One query keeps a hop at 3 searches (discovery + the bridge). */
export const directQueries = (a: string, b: string): string[] => [`${a} ${b}`];

/**
 * Spec S2's three example discovery templates, in the order a frontier's discoveries use them: the
 * first two at once (`discoveryQueries`); the third only when those left nothing to try from the
 * frontier while its photos filled every page (coordinator `deeperDiscovery`).
 */
export const DISCOVERY_TEMPLATES: readonly ((frontier: string) => string)[] = [(f) => `${f} with celebrities`, (f) => `${f} event`, (f) => `${f} awards`];

/**
 * S2: who is photographed with the frontier. Spec S2's examples are three; two keep the spec's budget of
 * 20 searches reaching a 6th hop. The saga puts a direct attempt's query, already run, in place of the
 * second when one named the frontier (coordinator `discoveryQueriesBeside`).
 */
export const discoveryQueries = (frontier: string): string[] => DISCOVERY_TEMPLATES.slice(0, 2).map((template) => template(frontier));

/** S4: the frontier with the chosen intermediate (the spec's two). */
export const verificationQueries = (frontier: string, candidate: string): string[] => [`${frontier} ${candidate}`, `${frontier} ${candidate} event`];

/** The longest side of an evidence thumbnail, in pixels: what the console shows, never the original. */
export const EVIDENCE_THUMBNAIL_MAX_SIDE = 512;

/** An evidence thumbnail's identifier: the photo's 64-bit pHash, hex (the same photo found twice is one thumbnail). */
export const EVIDENCE_THUMBNAIL_ID = /^[0-9a-f]{16}$/;

/** Where every evidence thumbnail's blob key starts (retention and takedowns list them by it). */
export const EVIDENCE_THUMBNAIL_PREFIX = 'visual-evidence/';

/**
 * The blob key of the JPEG thumbnail of an evidence photo, by its pHash: visual-search writes it, the
 * gateway serves it to the run's owner. Keyed by pHash so a photo seen again (another query, another
 * run) is one object.
 */
export const evidenceThumbnailKey = (phash: string): string => `${EVIDENCE_THUMBNAIL_PREFIX}${phash}.jpg`;

/**
 * S6's confidence maths, in percent (0–100):
 * - edge: max over its evidence images of min(confFrom, confTo): an image is as good as its weaker face;
 * - path bottleneck: min over the path's edges;
 * - path cumulative: product over the edges of (edgeConf / 100), a probability in [0, 1].
 */
export function edgeConfidence(images: readonly { readonly confidenceFrom: number; readonly confidenceTo: number }[]): number {
  if (images.length === 0) throw new Error('an edge needs at least one evidence image');
  return Math.max(...images.map((image) => Math.min(image.confidenceFrom, image.confidenceTo)));
}

export function pathBottleneck(edgeConfs: readonly number[]): number {
  if (edgeConfs.length === 0) throw new Error('a path has at least one edge');
  return Math.min(...edgeConfs);
}

export function pathCumulative(edgeConfs: readonly number[]): number {
  if (edgeConfs.length === 0) throw new Error('a path has at least one edge');
  return edgeConfs.reduce((product, conf) => product * (conf / 100), 1);
}

/** What the fallback ranking reads of a candidate. */
export interface RankedCandidate {
  readonly person: { readonly celebrityId: string };
  readonly count: number;
  readonly bestConfWithFrontier: number;
}

/**
 * S3's deterministic fallback ranking: highest `bestConfWithFrontier`, tie broken by `count`; the
 * celebrity id breaks what remains, so the order never depends on arrival order.
 */
export function fallbackOrder(a: RankedCandidate, b: RankedCandidate): number {
  return b.bestConfWithFrontier - a.bestConfWithFrontier || b.count - a.count || a.person.celebrityId.localeCompare(b.person.celebrityId);
}
