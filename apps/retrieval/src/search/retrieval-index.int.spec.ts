import { openDatabase } from '@openpaw/persistence';
import { LocalHashedEmbedder } from '@openpaw/providers';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { RETRIEVAL_SCHEMA } from '../config.js';
import { pgPoolOf } from '../persistence/database.js';
import { retrievalMigrations } from '../persistence/migrations/index.js';
import { TANK_ORIGINAL, TANK_QUARTER_JPEG } from '../testing/ingested-signatures.js';
import { ProviderEmbedderAdapter } from './embedder-adapter.js';
import { RetrievalIndex } from './retrieval-index.js';
import { documentFromIndexCommand, queryFromSignature } from './signature-mapping.js';

describe('RetrievalIndex replicas over one database', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDatabase({ url: await freshDatabase('retrieval_replicas'), schema: RETRIEVAL_SCHEMA, migrations: retrievalMigrations, poolSize: 2 });
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('a replica finds what another indexed after it started (pHash and embedded vectors caught up from PostgreSQL)', async () => {
    const pool = pgPoolOf(dataSource);
    const embedder = await ProviderEmbedderAdapter.open(new LocalHashedEmbedder());
    const options = { vectors: { backend: 'embedded' as const }, refreshMs: 60_000 };
    const writer = await RetrievalIndex.open(pool, embedder, options);
    const reader = await RetrievalIndex.open(pool, embedder, options);

    const tank = { runId: '00000000-0000-4000-8000-000000000001', problemId: '00000000-0000-4000-8000-000000000002', assetVersionId: '00000000-0000-4000-8000-000000000003' };
    await writer.index(documentFromIndexCommand({ ...tank, signature: TANK_ORIGINAL }));
    expect(await writer.search(queryFromSignature(TANK_QUARTER_JPEG), 0.85)).toMatchObject({ outcome: 'hit', stage: 'phash', confidence: 0.95 });

    // Within its refresh interval the reader has not looked yet; once it does, both in-memory indexes know the problem.
    const stale = await reader.search(queryFromSignature(TANK_QUARTER_JPEG), 0.85);
    expect(stale.trace.find((t) => t.stage === 'phash')).toMatchObject({ decision: 'rejected', reason: expect.stringMatching(/no pHash within/) });
    await reader.catchUp(true);
    expect(reader.stats()).toMatchObject({ vectors: 1, phashes: { [TANK_ORIGINAL.phashVersion ?? '']: 1 } });
    expect(await reader.search(queryFromSignature(TANK_QUARTER_JPEG), 0.85)).toMatchObject({
      outcome: 'hit',
      stage: 'phash',
      candidate: { assetVersionId: tank.assetVersionId, problemId: tank.problemId },
    });
    // A reworded reading of the same page: only the vector index can find it.
    const reworded = { ...queryFromSignature(TANK_ORIGINAL), normalisedText: 'a tank holds 240 litres of water and drains at 8 litres per minute. how long until it is empty?', textSha256: 'f'.repeat(64) };
    const { imageSha256: _image, phash: _phash, ...textOnly } = reworded;
    expect(await reader.search(textOnly, 0.85)).toMatchObject({ outcome: 'hit', stage: 'vector', candidate: { assetVersionId: tank.assetVersionId } });
  });
});
