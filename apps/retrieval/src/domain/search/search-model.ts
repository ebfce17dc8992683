import type { Embedder } from '../embedder.js';
import type { PhashMatch } from '../phash-index.js';
import type { DocumentMaths, ProblemCatalog } from '../problem-catalog.js';
import { DEFAULT_TEXT_AGREEMENT, type TextAgreementBounds } from '../text-similarity.js';
import type { VectorIndex } from '../vector-index.js';
import type { Relabel } from './maths-mapping.js';

/** Spec 01's confidences for the exact tiers, and the maths signature's (ADR 0007) before its reading factor. */
export const CONFIDENCE = {
  exactImage: 1.0,
  exactPhash: 1.0,
  exactText: 0.99,
  nearDuplicate: 0.95,
  mathsSignature: 0.97,
} as const;

/** Spec 01: hybrid re-ranked results are accepted at `policy.retrieval_threshold - 0.02`. */
export const HYBRID_THRESHOLD_OFFSET = 0.02;

/**
 * Spec 01's per-method bars ("Retrieval Confidence Thresholds (from ExecutionPolicy)"): a command
 * carries the policy's; these are the spec's defaults for a command that does not. The vector bar
 * is `SearchPolicy.threshold` itself; an identical image is held to the exact pHash bar.
 */
export interface MethodThresholds {
  readonly exactPhash: number;
  readonly nearDuplicate: number;
  readonly exactText: number;
  readonly hybridOffset: number;
}

export const DEFAULT_METHOD_THRESHOLDS: MethodThresholds = { exactPhash: 1.0, nearDuplicate: 0.95, exactText: 0.99, hybridOffset: HYBRID_THRESHOLD_OFFSET };

/** `policy.maths_signature_threshold` when the command does not carry it (ADR 0007). */
export const DEFAULT_MATHS_SIGNATURE_THRESHOLD = 0.85;

export type SearchStage = 'exact_image' | 'phash' | 'exact_text' | 'maths_signature' | 'vector' | 'hybrid';

/** The signature fields retrieval searches by (`ingestion.MediaNormalized`'s problem signature). */
export interface RetrievalQuery {
  readonly normalisedText: string;
  readonly textSha256: string;
  readonly imageSha256?: string;
  readonly phash?: string;
  readonly phashVersion?: string;
  readonly quality?: number;
  readonly textDominant?: boolean;
  readonly maths?: DocumentMaths;
}

export interface SearchPolicy {
  /** `policy.retrieval_threshold`: a hit needs confidence ≥ this (hybrid: ≥ this − 0.02). */
  readonly threshold: number;
  /** `policy.maths_signature_threshold`: the maths-signature stage's bar. */
  readonly mathsThreshold?: number;
  /** The policy's bars of the exact tiers and the hybrid offset; DEFAULT_METHOD_THRESHOLDS when absent. */
  readonly methods?: MethodThresholds;
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
  readonly catalog: Pick<
    ProblemCatalog,
    'findByImageSha256' | 'findByTextSha256' | 'findByMathsHashes' | 'getByDocIds' | 'getByAssetVersionIds' | 'keywordSearch'
  >;
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

export type Note = (entry: TraceEntry) => void;

export interface HybridSearchResult {
  readonly outcome: 'hit' | 'miss';
  /** The accepted candidate on a hit; on a miss the best-scoring one (for spec 01's near-miss rule), if any. */
  readonly candidate: CandidateRef | null;
  readonly confidence: number;
  readonly stage: SearchStage | null;
  readonly trace: readonly TraceEntry[];
  /** The candidate is the query's problem in other names (maths tier only): stored name → asker's name. */
  readonly relabel?: readonly Relabel[];
}

export function ref(problem: { assetVersionId: string; problemId?: string }): CandidateRef {
  return problem.problemId === undefined ? { assetVersionId: problem.assetVersionId } : { assetVersionId: problem.assetVersionId, problemId: problem.problemId };
}

export const fmt = (value: number): string => value.toFixed(3);
