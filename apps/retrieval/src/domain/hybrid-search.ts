import { refusedCandidates } from './search/candidate-gate.js';
import { exactTextStage } from './search/exact-text-stage.js';
import { mathsStage } from './search/maths-stage.js';
import { findPhashDuplicate } from './search/phash-stage.js';
import { fuse, vectorRef } from './search/rank-fusion.js';
import {
  CONFIDENCE,
  DEFAULT_MATHS_SIGNATURE_THRESHOLD,
  DEFAULT_METHOD_THRESHOLDS,
  DEFAULT_SEARCH_SETTINGS,
  fmt,
  type HybridSearchPorts,
  type HybridSearchResult,
  type HybridSearchSettings,
  type CandidateRef,
  ref,
  type RetrievalQuery,
  type SearchPolicy,
  type SearchStage,
  type TraceEntry,
} from './search/search-model.js';
import type { Relabel } from './search/maths-mapping.js';

export { refusedCandidates } from './search/candidate-gate.js';
export { exactTextStage } from './search/exact-text-stage.js';
export { describeRelabel, mathsRelation, type MathsRelation, type Relabel } from './search/maths-mapping.js';
export { mathsStage, type MathsMatch } from './search/maths-stage.js';
export { findPhashDuplicate } from './search/phash-stage.js';
export { fuse, vectorRef } from './search/rank-fusion.js';
export * from './search/search-model.js';

interface Scored {
  readonly stage: SearchStage;
  readonly candidate: CandidateRef;
  readonly confidence: number;
  readonly bar: number;
  readonly relabel?: readonly Relabel[];
}

/**
 * Spec 01's RETRIEVING step: exact image key (1.0), pHash duplicate (exact 1.0, near 0.95), exact
 * normalised text (0.99), the maths signature (0.97 × reading confidence, ADR 0007), vector cosine
 * (≥ threshold), and reciprocal-rank fusion of keyword and vector ranks (≥ threshold − 0.02), tried from
 * most to least certain; the first tier that clears its bar wins. Every candidate considered, accepted
 * or not, and why, goes into the trace.
 *
 * Guards beyond the spec, each from a measured failure (see bench/ingestion-retrieval):
 * - pHash matches need both images above the quality bound (blank pages hash alike);
 * - for text-dominant images a pHash match must be confirmed by the OCR'd texts, because a pHash of a
 *   page of text describes the layout, and different problems in one layout collide; and whenever both
 *   sides have a maths signature, a pHash match must have the same maths (short problems are not
 *   text-dominant, and issue 16's benchmark found siblings in one layout matched by pHash alone);
 * - exact text is not trusted when either side is an image that is more than its text (a figure);
 * - vector and hybrid candidates whose maths (or, without maths, numbers) differ from the query's are
 *   dropped: an embedding cannot tell "3x + 7 = 22" from "5x + 7 = 22", and serving the sibling's
 *   solution is wrong.
 * Candidates refused by a guard are never reported as the miss's top candidate: their score says
 * nothing about whether they are the same problem.
 */
export async function hybridSearch(
  query: RetrievalQuery,
  policy: SearchPolicy,
  ports: HybridSearchPorts,
  settings: HybridSearchSettings = DEFAULT_SEARCH_SETTINGS,
): Promise<HybridSearchResult> {
  const trace: TraceEntry[] = [];
  const scored: Scored[] = [];
  const note = (entry: TraceEntry): void => {
    trace.push(entry);
  };
  const consider = (entry: Scored, reasonIfRejected: string, detail?: string): boolean => {
    const accepted = entry.confidence >= entry.bar;
    const prefix = detail === undefined ? '' : `${detail}; `;
    note({
      stage: entry.stage,
      candidate: entry.candidate,
      score: entry.confidence,
      decision: accepted ? 'accepted' : 'rejected',
      reason: prefix + (accepted ? `confidence ${fmt(entry.confidence)} ≥ ${fmt(entry.bar)}` : reasonIfRejected),
    });
    scored.push(entry);
    return accepted;
  };
  const hit = (entry: Scored): HybridSearchResult => ({
    outcome: 'hit',
    candidate: entry.candidate,
    confidence: entry.confidence,
    stage: entry.stage,
    trace,
    ...(entry.relabel === undefined ? {} : { relabel: entry.relabel }),
  });
  const threshold = policy.threshold;
  const methods = policy.methods ?? DEFAULT_METHOD_THRESHOLDS;
  const below = (confidence: number, bar: number): string => `confidence ${fmt(confidence)} < threshold ${fmt(bar)}`;

  // Tier 1: the same normalised image.
  if (query.imageSha256 === undefined) {
    note({ stage: 'exact_image', candidate: null, score: null, decision: 'skipped', reason: 'query has no image' });
  } else {
    const [same] = await ports.catalog.findByImageSha256(query.imageSha256);
    if (same === undefined) note({ stage: 'exact_image', candidate: null, score: null, decision: 'rejected', reason: 'no identical image indexed' });
    else {
      const entry = { stage: 'exact_image' as const, candidate: ref(same), confidence: CONFIDENCE.exactImage, bar: methods.exactPhash };
      if (consider(entry, below(entry.confidence, entry.bar))) return hit(entry);
    }
  }

  // Tiers 2–4: pHash (exact 1.0 beats exact text 0.99 beats near duplicate 0.95).
  const phashBest = await findPhashDuplicate(query, ports, settings, note);
  if (phashBest !== undefined && phashBest.distance === 0) {
    const entry = { stage: 'phash' as const, candidate: ref(phashBest.problem), confidence: CONFIDENCE.exactPhash, bar: methods.exactPhash };
    if (consider(entry, below(entry.confidence, entry.bar))) return hit(entry);
  }
  const textMatch = await exactTextStage(query, ports, settings, note);
  if (textMatch !== undefined) {
    const entry = { stage: 'exact_text' as const, candidate: ref(textMatch), confidence: CONFIDENCE.exactText, bar: methods.exactText };
    if (consider(entry, below(entry.confidence, entry.bar))) return hit(entry);
  }
  if (phashBest !== undefined && phashBest.distance > 0) {
    const entry = { stage: 'phash' as const, candidate: ref(phashBest.problem), confidence: CONFIDENCE.nearDuplicate, bar: methods.nearDuplicate };
    if (consider(entry, below(entry.confidence, entry.bar))) return hit(entry);
  }

  // Tier 5: the same canonical maths and intent (ADR 0007).
  const maths = await mathsStage(query, ports, settings, note);
  if (maths !== undefined) {
    const bar = policy.mathsThreshold ?? DEFAULT_MATHS_SIGNATURE_THRESHOLD;
    const entry = { stage: 'maths_signature' as const, candidate: ref(maths.problem), confidence: maths.confidence, bar, ...(maths.relabel === undefined ? {} : { relabel: maths.relabel }) };
    if (consider(entry, `${below(entry.confidence, bar)}: a reading too unsure to identify the problem by its maths`, maths.detail)) return hit(entry);
  }

  // Tier 6: semantic similarity of the text.
  if (query.normalisedText === '') {
    note({ stage: 'vector', candidate: null, score: null, decision: 'skipped', reason: 'query has no text' });
    note({ stage: 'hybrid', candidate: null, score: null, decision: 'skipped', reason: 'query has no text' });
    return miss(scored, trace);
  }
  const [embedding] = await ports.embedder.embed([query.normalisedText]);
  if (embedding === undefined) throw new Error('embedder returned no vector');
  const rawVectorHits = await ports.vectors.search(embedding, settings.vectorCandidates);
  // Another problem's solution is never served, however close its wording: both tiers below only see
  // candidates whose maths (or numbers) agree with the query's.
  const refused = await refusedCandidates(query, rawVectorHits, [], ports, settings);
  const vectorHits = rawVectorHits.filter((h) => !refused.has(h.payload.asset_version_id));
  for (const h of rawVectorHits.slice(0, 3)) {
    const why = refused.get(h.payload.asset_version_id);
    if (why !== undefined) note({ stage: 'vector', candidate: vectorRef(h), score: null, decision: 'rejected', reason: `cosine ${fmt(h.score)} but ${why}` });
  }
  const topVector = vectorHits[0];
  if (topVector === undefined) {
    note({ stage: 'vector', candidate: null, score: null, decision: 'rejected', reason: 'no vector candidate whose maths or numbers agree' });
  } else {
    const entry = { stage: 'vector' as const, candidate: vectorRef(topVector), confidence: topVector.score, bar: threshold };
    if (consider(entry, below(entry.confidence, threshold))) return hit(entry);
  }

  // Tier 7: keyword and vector ranks fused; for when the vector alone is just short of sure. Only asked
  // for now: a vector hit above never pays for the keyword query. Keyword ranks are taken over the
  // vector candidates (plus anything containing every query term), not the whole corpus: fusion only
  // ever accepts a vector candidate, and at 100k documents an any-term full-text query touches most rows
  // (see bench/ingestion-retrieval/hybrid-search).
  const vectorIds = rawVectorHits.map((h) => h.payload.asset_version_id);
  const rawKeywordHits = await ports.catalog.keywordSearch(query.normalisedText, settings.keywordCandidates, vectorIds);
  const judged = new Set(vectorIds);
  const unjudged = rawKeywordHits.filter((h) => !judged.has(h.assetVersionId));
  for (const [id, why] of await refusedCandidates(query, [], unjudged, ports, settings)) refused.set(id, why);
  const keywordHits = rawKeywordHits.filter((h) => !refused.has(h.assetVersionId));
  const fused = fuse(vectorHits, keywordHits, settings.rrfK);
  if (fused === undefined) {
    note({ stage: 'hybrid', candidate: null, score: null, decision: 'rejected', reason: 'no keyword or vector candidates' });
  } else {
    const bar = threshold - methods.hybridOffset;
    const entry = { stage: 'hybrid' as const, candidate: fused.candidate, confidence: fused.confidence, bar };
    const why =
      fused.cosine === undefined
        ? `fused top candidate is not among the vector candidates (keyword rank ${fused.keywordRank ?? '-'})`
        : `${below(fused.confidence, bar)} (cosine ${fmt(fused.cosine)}, vector rank ${fused.vectorRank ?? '-'}, keyword rank ${fused.keywordRank ?? '-'})`;
    if (consider(entry, why)) return hit(entry);
  }
  return miss(scored, trace);
}

function miss(scored: readonly Scored[], trace: readonly TraceEntry[]): HybridSearchResult {
  let best: Scored | undefined;
  for (const entry of scored) if (best === undefined || entry.confidence > best.confidence) best = entry;
  return {
    outcome: 'miss',
    candidate: best?.candidate ?? null,
    confidence: best === undefined ? 0 : Math.max(0, best.confidence),
    stage: best?.stage ?? null,
    trace,
    ...(best?.relabel === undefined ? {} : { relabel: best.relabel }),
  };
}
