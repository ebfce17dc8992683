import { freshDatabase } from '@openpaw/testing';
import pg from 'pg';
import { ensureProblemCatalogTables, keywordQueryText, PgProblemCatalog, phashHexToSigned, signedToPhashHex } from './pg-problem-catalog.js';
import type { ProblemDocument } from './problem-catalog.js';

const doc = (id: string, text: string, extra: Partial<ProblemDocument> = {}): ProblemDocument => ({
  assetVersionId: id,
  normalisedText: text,
  textSha256: `${id}-text`.padEnd(64, '0'),
  ...extra,
});

describe('PgProblemCatalog (PostgreSQL)', () => {
  let pool: pg.Pool;
  let catalog: PgProblemCatalog;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await freshDatabase('retrieval_catalog'), max: 4 });
    await ensureProblemCatalogTables(pool);
    await ensureProblemCatalogTables(pool);
    catalog = new PgProblemCatalog(pool, 2);
  });

  afterAll(async () => {
    await pool.end();
  });

  it('stores unsigned 64-bit pHashes in a signed bigint and reads them back', () => {
    for (const hash of ['0000000000000000', '7fffffffffffffff', '8000000000000000', 'ffffffffffffffff', 'a5c30f963c5ae187']) {
      expect(signedToPhashHex(phashHexToSigned(hash))).toBe(hash);
    }
  });

  it('upserts idempotently per asset version, keeping the doc id', async () => {
    const image = doc('av-1', 'solve for x: 3x+7=22', {
      problemId: 'p-1',
      imageSha256: 'i'.repeat(64),
      phash: 'ffffffff00000001',
      phashVersion: 'v1',
      quality: 97,
      textDominant: true,
      subject: 'algebra',
      keywords: ['solve for', 'linear term'],
    });
    const created = await catalog.upsert(image);
    expect(created.change).toBe('created');
    expect(created.problem).toEqual({ ...image, docId: created.problem.docId });
    expect(await catalog.upsert(image)).toEqual({ problem: created.problem, change: 'unchanged' });
    const updated = await catalog.upsert({ ...image, quality: 80 });
    expect(updated).toMatchObject({ change: 'updated', problem: { docId: created.problem.docId, quality: 80 } });
  });

  it('finds by exact keys and by ids', async () => {
    const { problem } = await catalog.upsert(doc('av-2', 'find the area of a circle of radius 3', { imageSha256: 'j'.repeat(64) }));
    expect((await catalog.findByImageSha256('j'.repeat(64))).map((p) => p.assetVersionId)).toEqual(['av-2']);
    expect((await catalog.findByTextSha256(problem.textSha256)).map((p) => p.assetVersionId)).toEqual(['av-2']);
    expect(await catalog.findByTextSha256('none')).toEqual([]);
    expect((await catalog.getByDocIds([problem.docId])).map((p) => p.assetVersionId)).toEqual(['av-2']);
    expect((await catalog.getByAssetVersionIds(['av-2', 'av-x'])).map((p) => p.docId)).toEqual([problem.docId]);
    expect(await catalog.getByDocIds([])).toEqual([]);
  });

  it('keeps the unknowns of a maths signature and finds problems under either of two maths hashes (v3 and the v2 one before it)', async () => {
    const maths = { canonical: '(= (+ (* 4 v0) -9) 23)', intent: 'solve', numbers: ['23', '4', '9'], confidence: 1 };
    const v3 = doc('av-v3', 'solve 4k-9=23', { maths: { ...maths, hash: '3'.repeat(64), unknowns: ['k'] } });
    const v2 = doc('av-v2', 'solve 4x-9=23', { maths: { ...maths, hash: '2'.repeat(64) } });
    await catalog.upsert(v2);
    const created = await catalog.upsert(v3);
    expect(created.problem.maths).toEqual(v3.maths);
    expect(await catalog.upsert(v3)).toMatchObject({ change: 'unchanged' });
    expect(await catalog.upsert({ ...v3, maths: { ...maths, hash: '3'.repeat(64), unknowns: ['m'] } })).toMatchObject({ change: 'updated' });
    expect((await catalog.findByMathsHashes(['3'.repeat(64), '2'.repeat(64)])).map((p) => p.assetVersionId).sort()).toEqual(['av-v2', 'av-v3']);
    expect((await catalog.findByMathsHashes(['2'.repeat(64)]))[0]?.maths?.unknowns).toBeUndefined();
  });

  it('ranks keyword matches with PostgreSQL full-text search (GIN, websearch_to_tsquery, ts_rank_cd)', async () => {
    await catalog.upsert(doc('kw-train', 'a train travels 240 km in 3 hours. what is its average speed'));
    await catalog.upsert(doc('kw-car', 'a car travels 100 km in 2 hours. find the speed of the car'));
    await catalog.upsert(doc('kw-mole', 'how many moles of sodium chloride are in 117 g'));
    const hits = await catalog.keywordSearch('the trains travelled 240 km; find the average speed', 10);
    expect(hits[0]?.assetVersionId).toBe('kw-train');
    expect(hits.map((h) => h.assetVersionId)).toContain('kw-car');
    expect(hits.map((h) => h.assetVersionId)).not.toContain('kw-mole');
    expect(hits[0]?.rank).toBeGreaterThan(hits[1]?.rank ?? 0);
    expect(await catalog.keywordSearch('!!! ???', 10)).toEqual([]);
    // Restricted to candidates: the named rows plus rows containing every term, ranked by shared terms.
    const restricted = await catalog.keywordSearch('a car travels 100 km in 2 hours', 10, ['kw-mole', 'kw-train']);
    expect(restricted.map((h) => h.assetVersionId)).toEqual(['kw-car', 'kw-train']);
    expect(keywordQueryText('solve 3x+7=22 and solve again')).toBe('solve or 3 or 7 or 22 or and or again');
    const { rows } = await pool.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE indexname = 'indexed_problems_search_idx'");
    expect(rows[0]?.indexdef).toMatch(/USING gin \(search_vector\)/);
  });

  it('pages every pHash of one version for the index rebuild, and removes rows', async () => {
    await catalog.upsert(doc('ph-1', 'a', { phash: '0000000000000001', phashVersion: 'v1' }));
    await catalog.upsert(doc('ph-2', 'b', { phash: '0000000000000002', phashVersion: 'v1' }));
    await catalog.upsert(doc('ph-old', 'c', { phash: '0000000000000003', phashVersion: 'v0' }));
    const entries = [];
    for await (const page of catalog.phashEntries('v1')) {
      expect(page.length).toBeLessThanOrEqual(2);
      entries.push(...page);
    }
    expect(entries.map((e) => e.hash).sort()).toEqual([1n, 2n, 0xffffffff00000001n].sort());
    const removed = await catalog.remove('ph-2');
    expect(removed?.assetVersionId).toBe('ph-2');
    expect(await catalog.remove('ph-2')).toBeUndefined();
  });
});
