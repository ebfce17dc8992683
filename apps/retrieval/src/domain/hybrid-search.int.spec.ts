import { createHash } from 'node:crypto';
import { freshDatabase } from '@openpaw/testing';
import pg from 'pg';
import { EmbeddedVectorIndex } from './embedded-vector-index.js';
import { hybridSearch, type RetrievalQuery } from './hybrid-search.js';
import { MultiIndexHashIndex } from './phash-index.js';
import { ensureProblemCatalogTables, PgProblemCatalog } from './pg-problem-catalog.js';
import { ensureEmbeddedVectorTables, PgVectorStore } from './pg-vector-store.js';
import { indexProblem, rebuildPhashIndex } from './problem-indexer.js';
import { HashedNgramEmbedder } from './test-support/hashed-ngram-embedder.js';

const VERSION = 'dct64-median-dc/v1+crop-deskew-v1';
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const TEXT = 'a rectangle has a length of 12 cm and a width of 5 cm. find its area and its perimeter';
const PHASH = 'c3a50f963c5ae187';

describe('hybrid search over PostgreSQL, the embedded vector index and a rebuilt pHash index', () => {
  let pool: pg.Pool;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: await freshDatabase('retrieval_hybrid'), max: 4 });
    await ensureProblemCatalogTables(pool);
    await ensureEmbeddedVectorTables(pool);
    const ports = {
      catalog: new PgProblemCatalog(pool),
      phashIndex: new MultiIndexHashIndex(),
      vectors: new EmbeddedVectorIndex(256, new PgVectorStore(pool)),
      embedder: new HashedNgramEmbedder(256),
      phashVersion: VERSION,
    };
    const image = {
      assetVersionId: 'av-rect',
      problemId: 'p-rect',
      normalisedText: TEXT,
      textSha256: sha(TEXT),
      imageSha256: sha('rect pixels'),
      phash: PHASH,
      phashVersion: VERSION,
      quality: 100,
      textDominant: true,
      subject: 'geometry',
    };
    await indexProblem(image, ports);
    await indexProblem(image, ports);
    const speed = 'a cyclist rides 45 km in 3 hours. what is her average speed';
    await indexProblem({ assetVersionId: 'av-speed', normalisedText: speed, textSha256: sha(speed) }, ports);
  });

  afterAll(async () => {
    await pool.end();
  });

  /** A service start: every in-memory index is rebuilt from PostgreSQL. */
  async function startedService(): Promise<Parameters<typeof hybridSearch>[2]> {
    const catalog = new PgProblemCatalog(pool);
    const phashIndex = new MultiIndexHashIndex();
    await rebuildPhashIndex({ catalog, phashIndex, phashVersion: VERSION });
    const vectors = new EmbeddedVectorIndex(256, new PgVectorStore(pool));
    await vectors.load();
    return { catalog, phashIndex, vectors, embedder: new HashedNgramEmbedder(256) };
  }

  const query = (text: string, extra: Partial<RetrievalQuery> = {}): RetrievalQuery => ({ normalisedText: text, textSha256: sha(text), ...extra });

  it('answers every tier after a restart', async () => {
    const ports = await startedService();
    const policy = { threshold: 0.85 };
    const imageFields = { imageSha256: sha('new upload'), phashVersion: VERSION, quality: 100, textDominant: true };
    expect(await hybridSearch(query(TEXT, { ...imageFields, imageSha256: sha('rect pixels'), phash: PHASH }), policy, ports)).toMatchObject({
      outcome: 'hit',
      stage: 'exact_image',
      confidence: 1,
      candidate: { assetVersionId: 'av-rect' },
    });
    expect(await hybridSearch(query(TEXT, { ...imageFields, phash: PHASH }), policy, ports)).toMatchObject({ stage: 'phash', confidence: 1 });
    expect(await hybridSearch(query(TEXT), policy, ports)).toMatchObject({ stage: 'exact_text', confidence: 0.99 });
    const ocrNoisy = 'a rectangle has a length of 12 cm and a width of 5 cm. find its area and its perimetor';
    const nearHash = (BigInt(`0x${PHASH}`) ^ 0b1011n).toString(16).padStart(16, '0');
    expect(await hybridSearch(query(ocrNoisy, { ...imageFields, phash: nearHash }), policy, ports)).toMatchObject({
      outcome: 'hit',
      stage: 'phash',
      confidence: 0.95,
      candidate: { assetVersionId: 'av-rect', problemId: 'p-rect' },
    });
    const paraphrase = 'a cyclist rides 45 km in 3 hours. what is his average speed';
    const vectorHit = await hybridSearch(query(paraphrase), policy, ports);
    expect(vectorHit).toMatchObject({ outcome: 'hit', stage: 'vector', candidate: { assetVersionId: 'av-speed' } });
    const miss = await hybridSearch(query('balance the redox equation for permanganate in acid'), policy, ports);
    expect(miss.outcome).toBe('miss');
    expect(miss.confidence).toBeLessThan(0.85);
  });
});
