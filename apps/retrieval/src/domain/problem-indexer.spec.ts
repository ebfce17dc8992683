import { EmbeddedVectorIndex } from './embedded-vector-index.js';
import { MultiIndexHashIndex } from './phash-index.js';
import { indexProblem, type IndexingPorts, rebuildPhashIndex, unindexProblem } from './problem-indexer.js';
import { HashedNgramEmbedder } from './test-support/hashed-ngram-embedder.js';
import { InMemoryProblemCatalog } from './test-support/in-memory-problem-catalog.js';

const VERSION = 'v-test';

function setup(): IndexingPorts & { catalog: InMemoryProblemCatalog; phashIndex: MultiIndexHashIndex; vectors: EmbeddedVectorIndex } {
  return {
    catalog: new InMemoryProblemCatalog(),
    phashIndex: new MultiIndexHashIndex(),
    vectors: new EmbeddedVectorIndex(64),
    embedder: new HashedNgramEmbedder(64),
    phashVersion: VERSION,
  };
}

const doc = {
  assetVersionId: 'av-1',
  problemId: 'p-1',
  normalisedText: 'find the area of a circle of radius 3',
  textSha256: 'a'.repeat(64),
  phash: '00000000000000ff',
  phashVersion: VERSION,
  quality: 90,
  textDominant: true,
};

describe('indexProblem', () => {
  it('indexes catalogue, pHash and vector, and is idempotent per asset version', async () => {
    const ports = setup();
    const first = await indexProblem(doc, ports);
    expect(first).toMatchObject({ change: 'created', phashIndexed: true, vectorIndexed: true });
    const again = await indexProblem(doc, ports);
    expect(again).toMatchObject({ change: 'unchanged', problem: { docId: first.problem.docId } });
    expect(ports.phashIndex.size).toBe(1);
    expect(ports.vectors.size).toBe(1);
    expect(ports.phashIndex.search(0xffn, 0)).toEqual([{ id: first.problem.docId, distance: 0 }]);
    const [hit] = await ports.vectors.search((await ports.embedder.embed([doc.normalisedText]))[0] ?? new Float32Array(64), 1);
    expect(hit).toMatchObject({ id: 'av-1', payload: { asset_version_id: 'av-1', problem_id: 'p-1' } });
  });

  it('replaces the pHash when a version is re-indexed with a new one, and drops one of another algorithm', async () => {
    const ports = setup();
    const { problem } = await indexProblem(doc, ports);
    await indexProblem({ ...doc, phash: 'ff00000000000000' }, ports);
    expect(ports.phashIndex.search(0xffn, 3)).toEqual([]);
    expect(ports.phashIndex.hashOf(problem.docId)).toBe(0xff00000000000000n);
    const old = await indexProblem({ ...doc, phashVersion: 'v-old' }, ports);
    expect(old.phashIndexed).toBe(false);
    expect(ports.phashIndex.has(problem.docId)).toBe(false);
  });

  it('stores a textless figure without a vector', async () => {
    const ports = setup();
    await indexProblem(doc, ports);
    const figure = await indexProblem({ ...doc, normalisedText: '' }, ports);
    expect(figure.vectorIndexed).toBe(false);
    expect(ports.vectors.size).toBe(0);
  });

  it('unindexes from every index and rebuilds the pHash index from the catalogue', async () => {
    const ports = setup();
    await indexProblem(doc, ports);
    await indexProblem({ ...doc, assetVersionId: 'av-2', phash: '0000000000000fff' }, ports);
    expect(await unindexProblem('av-1', ports)).toBe(true);
    expect(await unindexProblem('av-1', ports)).toBe(false);
    const fresh = new MultiIndexHashIndex();
    await rebuildPhashIndex({ ...ports, phashIndex: fresh });
    expect(fresh.size).toBe(1);
    expect(fresh.search(0xfffn, 0)).toHaveLength(1);
    expect(ports.vectors.size).toBe(1);
  });
});
