import { edgeConfidence } from '@openpaw/contracts';
import { type ImageObservation, provenanceOf, type SeenCelebrity } from './observation.js';
import { type IdentifiedPerson, isPerson, type PersonRef } from './person.js';

export interface EvidenceImage {
  readonly imageUrl: string;
  readonly sourcePageUrl?: string;
  readonly query: string;
  readonly phash: string;
  readonly confidenceFrom: number;
  readonly confidenceTo: number;
  readonly thumbnailKey?: string;
  /** Celebrity ids of everyone recognised in the photo (the contract's `shows`). */
  readonly shows?: string[];
}

export interface PartialEvidence {
  readonly imageUrl: string;
  readonly sourcePageUrl?: string;
  readonly query: string;
  readonly confidenceFrom: number | null;
  readonly confidenceTo: number | null;
  /** Celebrity ids of everyone recognised in the photo (the contract's `shows`), as an evidence image's. */
  readonly shows: string[];
}

export interface VerifiedEdge {
  readonly from: IdentifiedPerson;
  readonly to: IdentifiedPerson;
  readonly edgeConf: number;
  readonly evidence: readonly EvidenceImage[];
}

export type EdgeVerdict =
  | { readonly verified: true; readonly edge: VerifiedEdge }
  | {
      readonly verified: false;
      readonly partial: readonly PartialEvidence[];
      /** Each side as a photo showed it at the threshold (its celebrity id learned), else as asked. */
      readonly from: PersonRef;
      readonly to: PersonRef;
    };

/** The best match of a person among an image's faces (a person shows once; take the most confident). */
function find(faces: readonly SeenCelebrity[], person: PersonRef): SeenCelebrity | undefined {
  let best: SeenCelebrity | undefined;
  for (const face of faces) if (isPerson(face, person) && (best === undefined || face.confidence > best.confidence)) best = face;
  return best;
}

function source(o: ImageObservation): { sourcePageUrl?: string } {
  return o.sourcePageUrl === undefined ? {} : { sourcePageUrl: o.sourcePageUrl };
}

/**
 * The edge rule (spec): an edge from–to is accepted when at least one image shows both, each at or
 * above the threshold. Every such image is evidence (strongest first); the edge's confidence is the
 * best image's weaker face. Without one, images that showed either side are the partial evidence.
 */
export function verifyEdge(observations: readonly ImageObservation[], from: PersonRef, to: PersonRef, threshold: number): EdgeVerdict {
  const evidence: EvidenceImage[] = [];
  const partial: PartialEvidence[] = [];
  let fromId: SeenCelebrity | undefined;
  let toId: SeenCelebrity | undefined;
  let fromSeen: SeenCelebrity | undefined;
  let toSeen: SeenCelebrity | undefined;
  for (const o of observations) {
    const a = find(o.celebrities, from);
    const b = find(o.celebrities, to);
    if (a !== undefined && a.confidence >= threshold) fromSeen ??= a;
    if (b !== undefined && b.confidence >= threshold) toSeen ??= b;
    if (a !== undefined && b !== undefined && a.celebrityId !== b.celebrityId && a.confidence >= threshold && b.confidence >= threshold) {
      evidence.push({ imageUrl: o.imageUrl, ...provenanceOf(o), query: o.query, phash: o.phash, confidenceFrom: a.confidence, confidenceTo: b.confidence });
      fromId ??= a;
      toId ??= b;
    } else if (a !== undefined || b !== undefined) {
      partial.push({ imageUrl: o.imageUrl, ...source(o), query: o.query, confidenceFrom: a?.confidence ?? null, confidenceTo: b?.confidence ?? null, shows: provenanceOf(o).shows });
    }
  }
  if (evidence.length === 0 || fromId === undefined || toId === undefined) return { verified: false, partial, from: learnt(from, fromSeen), to: learnt(to, toSeen) };
  evidence.sort((x, y) => Math.min(y.confidenceFrom, y.confidenceTo) - Math.min(x.confidenceFrom, x.confidenceTo));
  return {
    verified: true,
    edge: {
      from: { name: fromId.name, celebrityId: fromId.celebrityId },
      to: { name: toId.name, celebrityId: toId.celebrityId },
      edgeConf: edgeConfidence(evidence),
      evidence,
    },
  };
}

/** The person asked for, with the celebrity id of the face that showed them at the threshold (a name asked for is then known to the recogniser). */
function learnt(person: PersonRef, seen: SeenCelebrity | undefined): PersonRef {
  return person.celebrityId !== undefined || seen === undefined ? person : { name: person.name, celebrityId: seen.celebrityId };
}
