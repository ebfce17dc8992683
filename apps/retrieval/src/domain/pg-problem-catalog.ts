import type { Pool } from 'pg';
import { statementNamer } from '@openpaw/persistence';
import type { PhashIndexEntry } from './phash-index.js';
import type { CatalogChange, DocumentMaths, IndexedProblem, KeywordHit, ProblemCatalog, ProblemDocument, WithdrawalExpectation, WithdrawalOutcome } from './problem-catalog.js';
import { sameDocument } from './problem-catalog.js';

/**
 * The retrieval catalogue table (schema `retrieval`, owned by this service alone). `doc_id` is a dense
 * identity the in-memory pHash index uses as its slot; the tsvector is generated from the normalised
 * text, so keyword search can never drift from it; its GIN index has no pending list, which every
 * keyword query would otherwise scan (see the migration KeywordIndexWithoutPendingList1764600000000).
 * Exposed for the migrations to adopt verbatim.
 */
export const PROBLEM_CATALOG_DDL = `
CREATE SCHEMA IF NOT EXISTS retrieval;
CREATE TABLE IF NOT EXISTS retrieval.indexed_problems (
  doc_id            bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  asset_version_id  text PRIMARY KEY,
  problem_id        text,
  normalised_text   text NOT NULL,
  text_sha256       text NOT NULL,
  image_sha256      text,
  phash             bigint,
  phash_version     text,
  quality           smallint,
  text_dominant     boolean NOT NULL DEFAULT false,
  subject           text,
  keywords          text[] NOT NULL DEFAULT '{}',
  maths_hash        text,
  maths_canonical   text,
  maths_intent      text,
  maths_numbers     text[],
  maths_confidence  double precision,
  maths_unknowns    text[],
  maths_version     text,
  withdrawn_at      timestamptz,
  withdrawn_reason  text,
  search_vector     tsvector GENERATED ALWAYS AS (to_tsvector('english', normalised_text)) STORED,
  indexed_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS indexed_problems_text_sha256_idx ON retrieval.indexed_problems (text_sha256);
CREATE INDEX IF NOT EXISTS indexed_problems_image_sha256_idx ON retrieval.indexed_problems (image_sha256) WHERE image_sha256 IS NOT NULL;
CREATE INDEX IF NOT EXISTS indexed_problems_phash_idx ON retrieval.indexed_problems (phash_version, doc_id) WHERE phash IS NOT NULL;
CREATE INDEX IF NOT EXISTS indexed_problems_maths_hash_idx ON retrieval.indexed_problems (maths_hash) WHERE maths_hash IS NOT NULL;
CREATE INDEX IF NOT EXISTS indexed_problems_search_idx ON retrieval.indexed_problems USING GIN (search_vector) WITH (fastupdate = off);
`;

export async function ensureProblemCatalogTables(pool: Pool): Promise<void> {
  await pool.query(PROBLEM_CATALOG_DDL);
}

interface ProblemRow {
  doc_id: string;
  asset_version_id: string;
  problem_id: string | null;
  normalised_text: string;
  text_sha256: string;
  image_sha256: string | null;
  phash: string | null;
  phash_version: string | null;
  quality: number | null;
  text_dominant: boolean;
  subject: string | null;
  keywords: string[];
  maths_hash: string | null;
  maths_canonical: string | null;
  maths_intent: string | null;
  maths_numbers: string[] | null;
  maths_confidence: number | null;
  maths_unknowns: string[] | null;
  maths_version: string | null;
  withdrawn_reason: string | null;
}

const COLUMNS = `doc_id, asset_version_id, problem_id, normalised_text, text_sha256, image_sha256, phash, phash_version,
  quality, text_dominant, subject, keywords, maths_hash, maths_canonical, maths_intent, maths_numbers, maths_confidence,
  maths_unknowns, maths_version, withdrawn_reason`;

/** What every search lookup adds: a withdrawn problem is served by no tier (it stays, with why, for the record). */
const LIVE = 'withdrawn_at IS NULL';

/** PostgreSQL has only signed bigint; the unsigned 64-bit hash is stored as its two's-complement twin. */
export function phashHexToSigned(hex: string): string {
  return BigInt.asIntN(64, BigInt(`0x${hex}`)).toString();
}

export function signedToPhashHex(signed: string): string {
  return BigInt.asUintN(64, BigInt(signed)).toString(16).padStart(16, '0');
}

function toProblem(row: ProblemRow): IndexedProblem {
  return {
    docId: Number(row.doc_id),
    assetVersionId: row.asset_version_id,
    ...(row.problem_id === null ? {} : { problemId: row.problem_id }),
    normalisedText: row.normalised_text,
    textSha256: row.text_sha256,
    ...(row.image_sha256 === null ? {} : { imageSha256: row.image_sha256 }),
    ...(row.phash === null ? {} : { phash: signedToPhashHex(row.phash) }),
    ...(row.phash_version === null ? {} : { phashVersion: row.phash_version }),
    ...(row.quality === null ? {} : { quality: row.quality }),
    textDominant: row.text_dominant,
    ...(row.subject === null ? {} : { subject: row.subject }),
    keywords: row.keywords,
    ...(row.maths_hash === null
      ? {}
      : {
          maths: {
            hash: row.maths_hash,
            canonical: row.maths_canonical ?? '',
            intent: row.maths_intent ?? 'unspecified',
            numbers: row.maths_numbers ?? [],
            confidence: row.maths_confidence ?? 0,
            ...(row.maths_unknowns === null ? {} : { unknowns: row.maths_unknowns }),
            ...(row.maths_version === null ? {} : { version: row.maths_version }),
          },
        }),
    ...(row.withdrawn_reason === null ? {} : { withdrawnReason: row.withdrawn_reason }),
  };
}

/** Every search looks rows up by its keys: named statements, parsed and planned once per connection. */
const statementName = statementNamer('retrieval_catalog');

/**
 * Keyword query for a whole problem text. `websearch_to_tsquery` never fails on user text; joining the
 * words with "or" makes it a disjunction, so a paraphrase that shares most words still matches (the
 * default conjunction would need every word). Ranking does the rest.
 */
export function keywordQueryText(normalisedText: string, maxTerms = 24): string {
  const words = normalisedText.match(/[a-z]{2,}|\d+/g) ?? [];
  return [...new Set(words)].slice(0, maxTerms).join(' or ');
}

export class PgProblemCatalog implements ProblemCatalog {
  constructor(
    private readonly pool: Pool,
    private readonly pageSize = 10_000,
  ) {}

  async upsert(document: ProblemDocument): Promise<{ problem: IndexedProblem; change: CatalogChange }> {
    const existing = await this.byAssetVersionId(document.assetVersionId);
    if (existing !== undefined && sameDocument(existing, document)) return { problem: existing, change: 'unchanged' };
    const { rows } = await this.pool.query<ProblemRow>(
      `INSERT INTO retrieval.indexed_problems
         (asset_version_id, problem_id, normalised_text, text_sha256, image_sha256, phash, phash_version, quality,
          text_dominant, subject, keywords, maths_hash, maths_canonical, maths_intent, maths_numbers, maths_confidence, maths_unknowns,
          maths_version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
       ON CONFLICT (asset_version_id) DO UPDATE SET
         problem_id = EXCLUDED.problem_id, normalised_text = EXCLUDED.normalised_text, text_sha256 = EXCLUDED.text_sha256,
         image_sha256 = EXCLUDED.image_sha256, phash = EXCLUDED.phash, phash_version = EXCLUDED.phash_version,
         quality = EXCLUDED.quality, text_dominant = EXCLUDED.text_dominant, subject = EXCLUDED.subject,
         keywords = EXCLUDED.keywords, maths_hash = EXCLUDED.maths_hash, maths_canonical = EXCLUDED.maths_canonical,
         maths_intent = EXCLUDED.maths_intent, maths_numbers = EXCLUDED.maths_numbers,
         maths_confidence = EXCLUDED.maths_confidence, maths_unknowns = EXCLUDED.maths_unknowns,
         maths_version = EXCLUDED.maths_version, updated_at = now()
       RETURNING ${COLUMNS}`,
      [
        document.assetVersionId,
        document.problemId ?? null,
        document.normalisedText,
        document.textSha256,
        document.imageSha256 ?? null,
        document.phash === undefined ? null : phashHexToSigned(document.phash),
        document.phashVersion ?? null,
        document.quality === undefined ? null : Math.round(document.quality),
        document.textDominant ?? false,
        document.subject ?? null,
        [...(document.keywords ?? [])],
        document.maths?.hash ?? null,
        document.maths?.canonical ?? null,
        document.maths?.intent ?? null,
        document.maths === undefined ? null : [...document.maths.numbers],
        document.maths?.confidence ?? null,
        document.maths?.unknowns === undefined ? null : [...document.maths.unknowns],
        document.maths?.version ?? null,
      ],
    );
    const row = rows[0];
    if (row === undefined) throw new Error(`upsert of ${document.assetVersionId} returned no row`);
    return { problem: toProblem(row), change: existing === undefined ? 'created' : 'updated' };
  }

  async remove(assetVersionId: string): Promise<IndexedProblem | undefined> {
    const { rows } = await this.pool.query<ProblemRow>(
      `DELETE FROM retrieval.indexed_problems WHERE asset_version_id = $1 RETURNING ${COLUMNS}`,
      [assetVersionId],
    );
    return rows[0] === undefined ? undefined : toProblem(rows[0]);
  }

  async findByImageSha256(sha256: string): Promise<IndexedProblem[]> {
    return this.select(`${LIVE} AND image_sha256 = $1 ORDER BY doc_id DESC LIMIT 20`, [sha256]);
  }

  async findByTextSha256(sha256: string): Promise<IndexedProblem[]> {
    return this.select(`${LIVE} AND text_sha256 = $1 ORDER BY doc_id DESC LIMIT 20`, [sha256]);
  }

  async findByMathsHashes(hashes: readonly string[]): Promise<IndexedProblem[]> {
    return this.select(`${LIVE} AND maths_hash = ANY($1::text[]) ORDER BY doc_id DESC LIMIT 20`, [[...hashes]]);
  }

  async getByDocIds(docIds: readonly number[]): Promise<IndexedProblem[]> {
    if (docIds.length === 0) return [];
    return this.select(`${LIVE} AND doc_id = ANY($1::bigint[])`, [docIds.map(String)]);
  }

  async getByAssetVersionIds(assetVersionIds: readonly string[]): Promise<IndexedProblem[]> {
    if (assetVersionIds.length === 0) return [];
    return this.select(`${LIVE} AND asset_version_id = ANY($1::text[])`, [[...assetVersionIds]]);
  }

  async keywordSearch(normalisedText: string, limit: number, candidates?: readonly string[]): Promise<KeywordHit[]> {
    const query = keywordQueryText(normalisedText);
    if (query === '' || limit <= 0) return [];
    // Ranked against the disjunction (partial matches score), but the rows considered are either every
    // row matching it (GIN) or, when candidates are given, those rows (primary key) plus the rows matching
    // all terms (GIN on the conjunction): a handful of rows instead of most of the table. The two lookups
    // are separate branches of a UNION, so each keeps its own index (as one OR-ed condition the planner
    // fell back to scanning the disjunction's matches: 20–40 ms at 100k, issue 16's benchmark).
    const sql =
      candidates === undefined
        ? `SELECT doc_id, asset_version_id, ts_rank_cd(search_vector, q) AS rank
             FROM retrieval.indexed_problems, websearch_to_tsquery('english', $1) AS q
            WHERE search_vector @@ q AND withdrawn_at IS NULL
            ORDER BY rank DESC, doc_id DESC
            LIMIT $2`
        : `WITH considered AS (
             SELECT doc_id FROM retrieval.indexed_problems WHERE asset_version_id = ANY($3::text[])
             UNION
             SELECT doc_id FROM retrieval.indexed_problems WHERE search_vector @@ plainto_tsquery('english', $1)
           )
           SELECT p.doc_id, p.asset_version_id, ts_rank_cd(p.search_vector, q) AS rank
             FROM considered JOIN retrieval.indexed_problems p USING (doc_id), websearch_to_tsquery('english', $4) AS q
            WHERE p.search_vector @@ q AND p.withdrawn_at IS NULL
            ORDER BY rank DESC, p.doc_id DESC
            LIMIT $2`;
    const { rows } = await this.pool.query<{ doc_id: string; asset_version_id: string; rank: number }>({
      name: statementName(sql),
      text: sql,
      values: candidates === undefined ? [query, limit] : [normalisedText, limit, [...candidates], query],
    });
    return rows.map((row) => ({ docId: Number(row.doc_id), assetVersionId: row.asset_version_id, rank: row.rank }));
  }

  async *phashEntries(phashVersion: string): AsyncIterable<readonly PhashIndexEntry[]> {
    let after = 0;
    for (;;) {
      const { rows } = await this.pool.query<{ doc_id: string; phash: string }>(
        `SELECT doc_id, phash FROM retrieval.indexed_problems
          WHERE phash IS NOT NULL AND phash_version = $1 AND doc_id > $2 AND withdrawn_at IS NULL
          ORDER BY doc_id LIMIT $3`,
        [phashVersion, after, this.pageSize],
      );
      if (rows.length === 0) return;
      yield rows.map((row) => ({ id: Number(row.doc_id), hash: BigInt.asUintN(64, BigInt(row.phash)) }));
      after = Number(rows[rows.length - 1]?.doc_id ?? after);
      if (rows.length < this.pageSize) return;
    }
  }

  /**
   * Problems whose maths key was computed under another signature version than `version` (or before
   * versions were kept), after `afterDocId` in doc id order: what the re-key sweep re-derives.
   */
  async mathsKeysNotAt(version: string, afterDocId: number, limit: number): Promise<IndexedProblem[]> {
    return this.select(`${LIVE} AND maths_hash IS NOT NULL AND maths_version IS DISTINCT FROM $1 AND doc_id > $2 ORDER BY doc_id LIMIT $3`, [version, afterDocId, limit]);
  }

  /**
   * Replaces a problem's maths key (hash, canonical form, intent, numbers, unknowns' names, version), or
   * clears it (`next` undefined: its text gives no key today), only while the row still holds what it
   * was derived from: the same text and the same key. A compare-and-set in one statement, so a
   * concurrent re-index wins, a re-run finds nothing to do, and a sweep killed mid-way leaves each row
   * either as it was or fully re-keyed. The reading confidence is kept. True when the row was replaced.
   */
  async replaceMathsKey(problem: IndexedProblem, next: Pick<DocumentMaths, 'hash' | 'canonical' | 'intent' | 'numbers' | 'unknowns' | 'version'> | undefined): Promise<boolean> {
    const previous = problem.maths;
    if (previous === undefined || (next !== undefined && (next.unknowns === undefined || next.version === undefined))) return false;
    const text = `UPDATE retrieval.indexed_problems
         SET maths_hash = $1, maths_canonical = $2, maths_intent = $3, maths_numbers = $4, maths_unknowns = $5, maths_version = $6,
             maths_confidence = CASE WHEN $1::text IS NULL THEN NULL ELSE maths_confidence END, updated_at = now()
       WHERE asset_version_id = $7 AND normalised_text = $8 AND maths_hash = $9 AND maths_version IS NOT DISTINCT FROM $10`;
    const { rowCount } = await this.pool.query({
      name: statementName(text),
      text,
      values: [
        next?.hash ?? null,
        next?.canonical ?? null,
        next?.intent ?? null,
        next === undefined ? null : [...next.numbers],
        next?.unknowns === undefined ? null : [...next.unknowns],
        next?.version ?? null,
        problem.assetVersionId,
        problem.normalisedText,
        previous.hash,
        previous.version ?? null,
      ],
    });
    return rowCount === 1;
  }

  /**
   * Withdraws a problem (WithdrawProblem): no tier serves it from then on, in any replica (every lookup
   * skips it; the change feed and ProblemWithdrawn take it out of each replica's memory). Only while the
   * row still holds what the sweep judged, its text and maths key: one compare-and-set statement, so a
   * re-index in between wins and a repeat finds it already withdrawn. The row stays, with when and why.
   */
  async withdraw(assetVersionId: string, expected: WithdrawalExpectation, reason: string): Promise<{ readonly outcome: WithdrawalOutcome; readonly problem?: IndexedProblem }> {
    const text = `UPDATE retrieval.indexed_problems SET withdrawn_at = now(), withdrawn_reason = $2, updated_at = now()
       WHERE asset_version_id = $1 AND ${LIVE} AND text_sha256 = $3 AND maths_hash = $4 AND maths_version IS NOT DISTINCT FROM $5
       RETURNING ${COLUMNS}`;
    const { rows } = await this.pool.query<ProblemRow>({ name: statementName(text), text, values: [assetVersionId, reason, expected.textSha256, expected.mathsHash, expected.mathsVersion ?? null] });
    if (rows[0] !== undefined) return { outcome: 'withdrawn', problem: toProblem(rows[0]) };
    const current = await this.byAssetVersionId(assetVersionId);
    if (current === undefined) return { outcome: 'not_indexed' };
    return { outcome: current.withdrawnReason === undefined ? 'changed' : 'already_withdrawn', problem: current };
  }

  /** A problem by its asset version, withdrawn or not (how a replica learns what to drop from memory). */
  async byAssetVersionId(assetVersionId: string): Promise<IndexedProblem | undefined> {
    const [problem] = await this.select('asset_version_id = $1', [assetVersionId]);
    return problem;
  }

  private async select(where: string, params: unknown[]): Promise<IndexedProblem[]> {
    const text = `SELECT ${COLUMNS} FROM retrieval.indexed_problems WHERE ${where}`;
    const { rows } = await this.pool.query<ProblemRow>({ name: statementName(text), text, values: params });
    return rows.map(toProblem);
  }
}
