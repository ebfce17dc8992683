import type { PhashIndexEntry } from './phash-index.js';

/**
 * What retrieval stores per indexed asset version: the signature the ingestion service computed
 * (mirrored here rather than imported, because services share contracts, not code) plus identity.
 */
export interface ProblemDocument {
  readonly assetVersionId: string;
  readonly problemId?: string;
  readonly normalisedText: string;
  readonly textSha256: string;
  readonly imageSha256?: string;
  /** 16 lower-case hex digits. */
  readonly phash?: string;
  readonly phashVersion?: string;
  readonly quality?: number;
  readonly textDominant?: boolean;
  readonly subject?: string;
  readonly keywords?: readonly string[];
  /** The maths signature ingestion computed, when the problem's text holds maths. */
  readonly maths?: DocumentMaths;
}

/** A problem's maths as retrieval keeps it: the hash it is looked up by, and what the gate and trace need. */
export interface DocumentMaths {
  readonly hash: string;
  readonly canonical: string;
  readonly intent: string;
  readonly numbers: readonly string[];
  /** How sure the reading was, 0..1 (1 for typed text). */
  readonly confidence: number;
  /** The problem's own name of each canonical unknown (maths-sig/v3 on): what a renaming is mapped through. */
  readonly unknowns?: readonly string[];
  /** The signature version the key was computed under (absent for rows indexed before versions were kept). */
  readonly version?: string;
  /** A query's only, from producers up to maths-sig/v3: its hash under the version before. Never looked up. */
  readonly previousHash?: string;
}

export interface IndexedProblem extends ProblemDocument {
  /** Dense serial id assigned by the catalogue; the pHash index is keyed by it. */
  readonly docId: number;
  /** Why it was withdrawn (WithdrawProblem), when it was: no tier serves it. Search lookups never return such a row. */
  readonly withdrawnReason?: string;
}

/** What a withdrawal requires the row still to hold (what the sweep judged): its text and its maths key. */
export interface WithdrawalExpectation {
  readonly textSha256: string;
  readonly mathsHash: string;
  readonly mathsVersion?: string;
}

/** withdrawn now; already_withdrawn earlier; changed (re-indexed since it was judged: left as it is); not_indexed. */
export type WithdrawalOutcome = 'withdrawn' | 'already_withdrawn' | 'changed' | 'not_indexed';

export type CatalogChange = 'created' | 'updated' | 'unchanged';

export interface KeywordHit {
  readonly docId: number;
  readonly assetVersionId: string;
  /** Relevance from the full-text engine; only the order is used (ranks feed reciprocal-rank fusion). */
  readonly rank: number;
}

/** The retrieval catalogue port: exact keys, keyword search and the rows the pHash index is rebuilt from. */
export interface ProblemCatalog {
  /** Insert or update by asset version id; re-sending the same document reports `unchanged`. */
  upsert(document: ProblemDocument): Promise<{ readonly problem: IndexedProblem; readonly change: CatalogChange }>;
  remove(assetVersionId: string): Promise<IndexedProblem | undefined>;
  findByImageSha256(sha256: string): Promise<IndexedProblem[]>;
  findByTextSha256(sha256: string): Promise<IndexedProblem[]>;
  /** Problems indexed under any of these maths hashes (the query's, and its hash under the version before). */
  findByMathsHashes(hashes: readonly string[]): Promise<IndexedProblem[]>;
  getByDocIds(docIds: readonly number[]): Promise<IndexedProblem[]>;
  getByAssetVersionIds(assetVersionIds: readonly string[]): Promise<IndexedProblem[]>;
  /**
   * Full-text ranking of documents against the text. Without `candidates`, any document sharing a term
   * is ranked (fine for small corpora; costly at 100k, where common terms match most rows). With them,
   * only those documents plus the ones containing every term are ranked: how hybrid search re-ranks
   * its vector candidates without scanning the corpus.
   */
  keywordSearch(normalisedText: string, limit: number, candidates?: readonly string[]): Promise<KeywordHit[]>;
  /** Every stored pHash of one algorithm version, in pages. */
  phashEntries(phashVersion: string): AsyncIterable<readonly PhashIndexEntry[]>;
}

/** Canonical comparison of two documents: whether an upsert would change anything. */
export function sameDocument(a: ProblemDocument, b: ProblemDocument): boolean {
  return (
    a.assetVersionId === b.assetVersionId &&
    (a.problemId ?? null) === (b.problemId ?? null) &&
    a.normalisedText === b.normalisedText &&
    a.textSha256 === b.textSha256 &&
    (a.imageSha256 ?? null) === (b.imageSha256 ?? null) &&
    (a.phash ?? null) === (b.phash ?? null) &&
    (a.phashVersion ?? null) === (b.phashVersion ?? null) &&
    (a.quality ?? null) === (b.quality ?? null) &&
    (a.textDominant ?? false) === (b.textDominant ?? false) &&
    (a.subject ?? null) === (b.subject ?? null) &&
    (a.keywords ?? []).join('\u0000') === (b.keywords ?? []).join('\u0000') &&
    sameMaths(a.maths, b.maths)
  );
}

function sameMaths(a: DocumentMaths | undefined, b: DocumentMaths | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.hash === b.hash &&
    a.canonical === b.canonical &&
    a.intent === b.intent &&
    a.numbers.join(' ') === b.numbers.join(' ') &&
    (a.unknowns ?? []).join('\u0000') === (b.unknowns ?? []).join('\u0000') &&
    (a.version ?? null) === (b.version ?? null) &&
    Math.abs(a.confidence - b.confidence) < 1e-6
  );
}
