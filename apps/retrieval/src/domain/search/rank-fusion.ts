import type { KeywordHit } from '../problem-catalog.js';
import type { VectorHit } from '../vector-index.js';
import type { CandidateRef } from './search-model.js';

export function vectorRef(hit: VectorHit): CandidateRef {
  const problemId = hit.payload.problem_id;
  return typeof problemId === 'string' ? { assetVersionId: hit.payload.asset_version_id, problemId } : { assetVersionId: hit.payload.asset_version_id };
}

export interface Fused {
  readonly candidate: CandidateRef;
  readonly confidence: number;
  readonly cosine?: number;
  readonly vectorRank?: number;
  readonly keywordRank?: number;
}

/**
 * Reciprocal-rank fusion of the vector and keyword lists, mapped to a confidence. Ranks alone say
 * nothing about *how* similar the winner is (the best of unrelated documents is still rank 1 in both
 * lists), so the confidence is the winner's cosine scaled by its fused score relative to the best
 * possible (rank 1 in both lists): agreement of the two rankers can lift a cosine just under the
 * threshold over `threshold − 0.02`; a winner only one ranker likes is halved and never accepted.
 */
export function fuse(vectorHits: readonly VectorHit[], keywordHits: readonly KeywordHit[], k: number): Fused | undefined {
  const scores = new Map<string, { rrf: number; cosine?: number; vectorRank?: number; keywordRank?: number; candidate: CandidateRef }>();
  vectorHits.forEach((hit, index) => {
    const id = hit.payload.asset_version_id;
    const current = scores.get(id) ?? { rrf: 0, candidate: vectorRef(hit) };
    scores.set(id, { ...current, rrf: current.rrf + 1 / (k + index + 1), cosine: hit.score, vectorRank: index + 1 });
  });
  keywordHits.forEach((hit, index) => {
    const id = hit.assetVersionId;
    const current = scores.get(id) ?? { rrf: 0, candidate: { assetVersionId: id } };
    scores.set(id, { ...current, rrf: current.rrf + 1 / (k + index + 1), keywordRank: index + 1 });
  });
  let best: ({ rrf: number; cosine?: number; vectorRank?: number; keywordRank?: number; candidate: CandidateRef }) | undefined;
  for (const entry of scores.values()) if (best === undefined || entry.rrf > best.rrf) best = entry;
  if (best === undefined) return undefined;
  const maxRrf = 2 / (k + 1);
  const confidence = best.cosine === undefined ? 0 : Math.max(0, best.cosine) * (best.rrf / maxRrf);
  return {
    candidate: best.candidate,
    confidence,
    ...(best.cosine === undefined ? {} : { cosine: best.cosine }),
    ...(best.vectorRank === undefined ? {} : { vectorRank: best.vectorRank }),
    ...(best.keywordRank === undefined ? {} : { keywordRank: best.keywordRank }),
  };
}
