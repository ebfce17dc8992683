import { edgeConfidence, fallbackOrder } from '@openpaw/contracts';
import type { EvidenceImage } from './edge-verification.js';
import { type ImageObservation, provenanceOf } from './observation.js';
import { type IdentifiedPerson, isPerson, type PersonRef } from './person.js';

export interface Candidate {
  readonly person: IdentifiedPerson;
  /** Images where candidate and frontier both appear at or above the threshold. */
  readonly count: number;
  readonly bestConfWithFrontier: number;
  /** Those images: each one verifies the frontier–candidate edge by the spec's rule. */
  readonly evidence: readonly EvidenceImage[];
}

export interface CandidateDiscovery {
  /** The frontier as the images identified it (undefined when no image showed it at the threshold). */
  readonly frontier: IdentifiedPerson | undefined;
  readonly candidates: readonly Candidate[];
}

/**
 * S2's candidate set: everyone who co-appears with the frontier in at least one image, both at or
 * above the threshold, except the frontier itself and the excluded ids; in fallback order.
 */
export function collectCandidates(observations: readonly ImageObservation[], frontier: PersonRef, threshold: number, exclude: ReadonlySet<string>): CandidateDiscovery {
  const byId = new Map<string, { person: IdentifiedPerson; evidence: EvidenceImage[] }>();
  let identified: IdentifiedPerson | undefined;
  for (const o of observations) {
    const anchor = o.celebrities.filter((c) => isPerson(c, frontier)).sort((x, y) => y.confidence - x.confidence)[0];
    if (anchor === undefined || anchor.confidence < threshold) continue;
    identified ??= { name: anchor.name, celebrityId: anchor.celebrityId };
    for (const other of o.celebrities) {
      if (other.celebrityId === anchor.celebrityId || other.confidence < threshold || exclude.has(other.celebrityId)) continue;
      const entry = byId.get(other.celebrityId) ?? { person: { name: other.name, celebrityId: other.celebrityId }, evidence: [] };
      if (entry.evidence.some((e) => e.imageUrl === o.imageUrl)) continue;
      entry.evidence.push({
        imageUrl: o.imageUrl,
        ...provenanceOf(o),
        query: o.query,
        phash: o.phash,
        confidenceFrom: anchor.confidence,
        confidenceTo: other.confidence,
      });
      byId.set(other.celebrityId, entry);
    }
  }
  const candidates = [...byId.values()]
    .map(({ person, evidence }) => ({ person, count: evidence.length, bestConfWithFrontier: edgeConfidence(evidence), evidence }))
    .sort(fallbackOrder);
  return { frontier: identified, candidates };
}
