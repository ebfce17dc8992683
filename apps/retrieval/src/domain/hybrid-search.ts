import type { Embedder } from './embedder.js';
import type { PhashMatch } from './phash-index.js';
import type { IndexedProblem, KeywordHit, ProblemCatalog } from './problem-catalog.js';
import { DEFAULT_TEXT_AGREEMENT, numbersConsistent, numbersIn, textAgreement, type TextAgreementBounds } from './text-similarity.js';
import type { VectorHit, VectorIndex } from './vector-index.js';

/** Spec 01's confidences for the exact tiers. */
export const CONFIDENCE = {
  exactImage: 1.0,
  exactPhash: 1.0,
  exactText: 0.99,
  nearDuplicate: 0.95,
} as const;

/** Spec 01: hybrid re-ranked results are accepted at `policy.retrieval_threshold - 0.02`. */
export const HYBRID_THRESHOLD_OFFSET = 0.02;

export type SearchStage = 'exact_image' | 'phash' | 'exact_text' | 'vector' | 'hybrid';

/** The signature fields retrieval searches by (`ingestion.MediaNormalized`'s problem signature). */
export interface RetrievalQuery {
  readonly normalisedText: string;
  readonly textSha256: string;
  readonly imageSha256?: string;
  readonly phash?: string;
  readonly phashVersion?: string;
  readonly quality?: number;
  readonly textDominant?: boolean;
}

export interface SearchPolicy {
  /** `policy.retrieval_threshold`: a hit needs confidence ≥ this (hybrid: ≥ this − 0.02). */
  readonly threshold: number;
}

export interface HybridSearchSettings {
  /** PDQ-style quality both sides need before a pHash match is considered. */
  readonly minQuality: number;
  /** Hamming distance bound of a near duplicate, inclusive (spec: "< 8"). */
  readonly maxPhashDistance: number;
  readonly textAgreement: TextAgreementBounds;
  /** Normalised texts shorter than this are too generic ("find x") to identify a problem by equality. */
  readonly minExactTextLength: number;
  readonly vectorCandidates: number;
  readonly keywordCandidates: number;
  /** Reciprocal-rank-fusion damping constant (60 in Cormack et al.). */
  readonly rrfK: number;
  /** The pHash algorithm version this index holds; other versions are never compared. */
  readonly phashVersion?: string;
}

export const DEFAULT_SEARCH_SETTINGS: HybridSearchSettings = {
  minQuality: 50,
  maxPhashDistance: 7,
  textAgreement: DEFAULT_TEXT_AGREEMENT,
  minExactTextLength: 8,
  vectorCandidates: 20,
  keywordCandidates: 20,
  rrfK: 60,
};

export interface PhashLookup {
  search(hash: bigint, maxDistance: number): PhashMatch[];
}

export interface HybridSearchPorts {
  readonly catalog: Pick<ProblemCatalog, 'findByImageSha256' | 'findByTextSha256' | 'getByDocIds' | 'getByAssetVersionIds' | 'keywordSearch'>;
  readonly phashIndex: PhashLookup;
  readonly vectors: VectorIndex;
  readonly embedder: Embedder;
}

export interface CandidateRef {
  readonly assetVersionId: string;
  readonly problemId?: string;
}

export interface TraceEntry {
  readonly stage: SearchStage;
  readonly candidate: CandidateRef | null;
  readonly score: number | null;
  readonly decision: 'accepted' | 'rejected' | 'skipped';
  readonly reason: string;
}

export interface HybridSearchResult {
  readonly outcome: 'hit' | 'miss';
  /** The accepted candidate on a hit; on a miss the best-scoring one (for spec 01's near-miss rule), if any. */
  readonly candidate: CandidateRef | null;
  readonly confidence: number;
  readonly stage: SearchStage | null;
  readonly trace: readonly TraceEntry[];
}

interface Scored {
  readonly stage: SearchStage;
  readonly candidate: CandidateRef;
  readonly confidence: number;
  readonly bar: number;
}

function ref(problem: { assetVersionId: string; problemId?: string }): CandidateRef {
  return problem.problemId === undefined ? { assetVersionId: problem.assetVersionId } : { assetVersionId: problem.assetVersionId, problemId: problem.problemId };
}

const fmt = (value: number): string => value.toFixed(3);

/**
 * Spec 01's RETRIEVING step: exact image key (1.0), pHash duplicate (exact 1.0, near 0.95), exact
 * normalised text (0.99), vector cosine (≥ threshold), and reciprocal-rank fusion of keyword and vector
 * ranks (≥ threshold − 0.02), tried from most to least certain; the first tier that clears its bar
 * wins. Every candidate considered, accepted or not, and why, goes into the trace.
 *
 * Guards beyond the spec, each from a measured failure (see bench/ingestion-retrieval):
 * - pHash matches need both images above the quality bound (blank pages hash alike);
 * - for text-dominant images a pHash match must be confirmed by the OCR'd texts, because a pHash of a
 *   page of text describes the layout, and different problems in one layout collide;
 * - exact text is not trusted when either side is an image that is more than its text (a figure);
 * - vector and hybrid candidates whose numbers contradict the query's are dropped: an embedding
 *   cannot tell "3x + 7 = 22" from "5x + 7 = 22", and serving the sibling's solution is wrong.
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
  const consider = (entry: Scored, reasonIfRejected: string): boolean => {
    const accepted = entry.confidence >= entry.bar;
    note({
      stage: entry.stage,
      candidate: entry.candidate,
      score: entry.confidence,
      decision: accepted ? 'accepted' : 'rejected',
      reason: accepted ? `confidence ${fmt(entry.confidence)} ≥ ${fmt(entry.bar)}` : reasonIfRejected,
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
  });
  const threshold = policy.threshold;
  const below = (confidence: number, bar: number): string => `confidence ${fmt(confidence)} < threshold ${fmt(bar)}`;

  // Tier 1: the same normalised image.
  if (query.imageSha256 === undefined) {
    note({ stage: 'exact_image', candidate: null, score: null, decision: 'skipped', reason: 'query has no image' });
  } else {
    const [same] = await ports.catalog.findByImageSha256(query.imageSha256);
    if (same === undefined) note({ stage: 'exact_image', candidate: null, score: null, decision: 'rejected', reason: 'no identical image indexed' });
    else {
      const entry = { stage: 'exact_image' as const, candidate: ref(same), confidence: CONFIDENCE.exactImage, bar: threshold };
      if (consider(entry, below(entry.confidence, threshold))) return hit(entry);
    }
  }

  // Tiers 2–4: pHash (exact 1.0 beats exact text 0.99 beats near duplicate 0.95).
  const phashBest = await findPhashDuplicate(query, ports, settings, note);
  if (phashBest !== undefined && phashBest.distance === 0) {
    const entry = { stage: 'phash' as const, candidate: ref(phashBest.problem), confidence: CONFIDENCE.exactPhash, bar: threshold };
    if (consider(entry, below(entry.confidence, threshold))) return hit(entry);
  }
  const textMatch = await exactTextStage(query, ports, settings, note);
  if (textMatch !== undefined) {
    const entry = { stage: 'exact_text' as const, candidate: ref(textMatch), confidence: CONFIDENCE.exactText, bar: threshold };
    if (consider(entry, below(entry.confidence, threshold))) return hit(entry);
  }
  if (phashBest !== undefined && phashBest.distance > 0) {
    const entry = { stage: 'phash' as const, candidate: ref(phashBest.problem), confidence: CONFIDENCE.nearDuplicate, bar: threshold };
    if (consider(entry, below(entry.confidence, threshold))) return hit(entry);
  }

  // Tier 5: semantic similarity of the text.
  if (query.normalisedText === '') {
    note({ stage: 'vector', candidate: null, score: null, decision: 'skipped', reason: 'query has no text' });
    note({ stage: 'hybrid', candidate: null, score: null, decision: 'skipped', reason: 'query has no text' });
    return miss(scored, trace);
  }
  const [embedding] = await ports.embedder.embed([query.normalisedText]);
  if (embedding === undefined) throw new Error('embedder returned no vector');
  const rawVectorHits = await ports.vectors.search(embedding, settings.vectorCandidates);
  // Keyword ranks are taken over the vector candidates (plus anything containing every query term),
  // not the whole corpus: fusion only ever accepts a vector candidate, and at 100k documents an
  // any-term full-text query touches most rows (see bench/ingestion-retrieval/hybrid-search).
  const rawKeywordHits = await ports.catalog.keywordSearch(
    query.normalisedText,
    settings.keywordCandidates,
    rawVectorHits.map((hit) => hit.payload.asset_version_id),
  );
  // Same wording with other numbers is another problem (a sibling of one template), however close the
  // embedding; a paraphrase keeps its numbers. Both tiers below only see candidates whose numbers agree.
  const siblings = await numberSiblings(query, rawVectorHits, rawKeywordHits, ports, settings);
  const vectorHits = rawVectorHits.filter((hit) => !siblings.has(hit.payload.asset_version_id));
  const keywordHits = rawKeywordHits.filter((hit) => !siblings.has(hit.assetVersionId));
  for (const hit of rawVectorHits.slice(0, 3)) {
    if (siblings.has(hit.payload.asset_version_id)) {
      note({ stage: 'vector', candidate: vectorRef(hit), score: null, decision: 'rejected', reason: `cosine ${fmt(hit.score)} but its numbers differ from the query's` });
    }
  }
  const topVector = vectorHits[0];
  if (topVector === undefined) {
    note({ stage: 'vector', candidate: null, score: null, decision: 'rejected', reason: 'no vector candidate with consistent numbers' });
  } else {
    const entry = { stage: 'vector' as const, candidate: vectorRef(topVector), confidence: topVector.score, bar: threshold };
    if (consider(entry, below(entry.confidence, threshold))) return hit(entry);
  }

  // Tier 6: keyword and vector ranks fused; for when the vector alone is just short of sure.
  const fused = fuse(vectorHits, keywordHits, settings.rrfK);
  if (fused === undefined) {
    note({ stage: 'hybrid', candidate: null, score: null, decision: 'rejected', reason: 'no keyword or vector candidates' });
  } else {
    const bar = threshold - HYBRID_THRESHOLD_OFFSET;
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
  };
}

/** Asset versions among the text candidates whose numbers contradict the query's. */
async function numberSiblings(
  query: RetrievalQuery,
  vectorHits: readonly VectorHit[],
  keywordHits: readonly KeywordHit[],
  ports: HybridSearchPorts,
  settings: HybridSearchSettings,
): Promise<Set<string>> {
  const ids = [...new Set([...vectorHits.map((h) => h.payload.asset_version_id), ...keywordHits.map((h) => h.assetVersionId)])];
  const queryNumbers = numbersIn(query.normalisedText);
  const siblings = new Set<string>();
  if (ids.length === 0) return siblings;
  for (const candidate of await ports.catalog.getByAssetVersionIds(ids)) {
    if (!numbersConsistent(queryNumbers, numbersIn(candidate.normalisedText), settings.textAgreement.maxDroppedNumbers)) {
      siblings.add(candidate.assetVersionId);
    }
  }
  return siblings;
}

function vectorRef(hit: VectorHit): CandidateRef {
  const problemId = hit.payload.problem_id;
  return typeof problemId === 'string' ? { assetVersionId: hit.payload.asset_version_id, problemId } : { assetVersionId: hit.payload.asset_version_id };
}

/**
 * The image stage on its own: the nearest indexed pHash within the bound that passes the quality gate,
 * the version check and, for text-dominant images, the OCR text confirmation. Exported for the
 * near-duplicate benchmark, which measures exactly this stage.
 */
export async function findPhashDuplicate(
  query: RetrievalQuery,
  ports: Pick<HybridSearchPorts, 'catalog' | 'phashIndex'>,
  settings: HybridSearchSettings = DEFAULT_SEARCH_SETTINGS,
  note: (entry: TraceEntry) => void = () => undefined,
): Promise<{ problem: IndexedProblem; distance: number } | undefined> {
  const skip = (reason: string): undefined => {
    note({ stage: 'phash', candidate: null, score: null, decision: 'skipped', reason });
    return undefined;
  };
  if (query.phash === undefined) return skip('query has no pHash');
  if (settings.phashVersion !== undefined && query.phashVersion !== settings.phashVersion) {
    return skip(`query pHash version ${query.phashVersion ?? 'unknown'} is not the indexed ${settings.phashVersion}`);
  }
  if ((query.quality ?? 0) < settings.minQuality) return skip(`query image quality ${query.quality ?? 0} < ${settings.minQuality}`);

  const matches = ports.phashIndex.search(BigInt(`0x${query.phash}`), settings.maxPhashDistance);
  if (matches.length === 0) {
    note({ stage: 'phash', candidate: null, score: null, decision: 'rejected', reason: `no pHash within distance ${settings.maxPhashDistance}` });
    return undefined;
  }
  const distanceOf = new Map(matches.map((m) => [m.id, m.distance]));
  const problems = await ports.catalog.getByDocIds(matches.slice(0, 50).map((m) => m.id));
  problems.sort((a, b) => (distanceOf.get(a.docId) ?? 64) - (distanceOf.get(b.docId) ?? 64) || b.docId - a.docId);
  let best: { problem: IndexedProblem; distance: number; similarity: number } | undefined;
  for (const problem of problems) {
    const distance = distanceOf.get(problem.docId) ?? 64;
    const reject = (reason: string): void =>
      note({ stage: 'phash', candidate: ref(problem), score: null, decision: 'rejected', reason: `distance ${distance}: ${reason}` });
    if (problem.phashVersion !== query.phashVersion) {
      reject(`indexed under pHash version ${problem.phashVersion ?? 'unknown'}`);
      continue;
    }
    if ((problem.quality ?? 0) < settings.minQuality) {
      reject(`candidate image quality ${problem.quality ?? 0} < ${settings.minQuality}`);
      continue;
    }
    let similarity = 1;
    if (query.textDominant === true || problem.textDominant === true) {
      const agreement = textAgreement(query.normalisedText, problem.normalisedText, settings.textAgreement);
      if (!agreement.agree) {
        reject(
          `text-dominant image and OCR texts disagree (similarity ${fmt(agreement.similarity)}${agreement.numbersConsistent ? '' : ', numbers differ'})`,
        );
        continue;
      }
      similarity = agreement.similarity;
    }
    if (best === undefined || distance < best.distance || (distance === best.distance && similarity > best.similarity)) {
      best = { problem, distance, similarity };
    }
  }
  return best === undefined ? undefined : { problem: best.problem, distance: best.distance };
}

async function exactTextStage(
  query: RetrievalQuery,
  ports: HybridSearchPorts,
  settings: HybridSearchSettings,
  note: (entry: TraceEntry) => void,
): Promise<IndexedProblem | undefined> {
  const skip = (reason: string): undefined => {
    note({ stage: 'exact_text', candidate: null, score: null, decision: 'skipped', reason });
    return undefined;
  };
  if (query.normalisedText.length < settings.minExactTextLength) {
    return skip(`normalised text shorter than ${settings.minExactTextLength} characters`);
  }
  if (query.imageSha256 !== undefined && query.textDominant !== true) return skip('query image carries more than its text');
  const candidates = await ports.catalog.findByTextSha256(query.textSha256);
  if (candidates.length === 0) {
    note({ stage: 'exact_text', candidate: null, score: null, decision: 'rejected', reason: 'no identical normalised text indexed' });
    return undefined;
  }
  for (const candidate of candidates) {
    if (candidate.imageSha256 !== undefined && candidate.textDominant !== true) {
      note({ stage: 'exact_text', candidate: ref(candidate), score: null, decision: 'rejected', reason: 'candidate image carries more than its text' });
      continue;
    }
    return candidate;
  }
  return undefined;
}

interface Fused {
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
