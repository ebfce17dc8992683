import { createHash } from 'node:crypto';
import { EmbeddedVectorIndex } from './embedded-vector-index.js';
import { DEFAULT_METHOD_THRESHOLDS, fuse, hybridSearch, type HybridSearchPorts, type RetrievalQuery } from './hybrid-search.js';
import { MultiIndexHashIndex } from './phash-index.js';
import type { ProblemDocument } from './problem-catalog.js';
import { indexProblem, type IndexingPorts } from './problem-indexer.js';
import { HashedNgramEmbedder } from './test-support/hashed-ngram-embedder.js';
import { InMemoryProblemCatalog } from './test-support/in-memory-problem-catalog.js';

const VERSION = 'dct64-median-dc/v1+crop-deskew-v1';
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const hex = (value: bigint): string => value.toString(16).padStart(16, '0');

const BASE_HASH = 0xa5c3_0f96_3c5a_e187n;
/** BASE_HASH with `n` low bits flipped: a pHash at Hamming distance n. */
const near = (n: number): string => hex(BASE_HASH ^ ((1n << BigInt(n)) - 1n));

const LINEAR = 'solve for x: 3x+7=22. show each step of your work';
const SIBLING = 'solve for x: 5x+7=22. show each step of your work';
const TRAIN = 'a train travels 240 km in 3 hours. what is its average speed in km/h';
const CIRCLE = 'a circle has a radius of 7 m. calculate its circumference and its area';

function imageDoc(assetVersionId: string, text: string, phash: string, extra: Partial<ProblemDocument> = {}): ProblemDocument {
  return {
    assetVersionId,
    problemId: `problem-of-${assetVersionId}`,
    normalisedText: text,
    textSha256: sha(text),
    imageSha256: sha(`pixels of ${assetVersionId}`),
    phash,
    phashVersion: VERSION,
    quality: 100,
    textDominant: true,
    ...extra,
  };
}

function textDoc(assetVersionId: string, text: string): ProblemDocument {
  return { assetVersionId, normalisedText: text, textSha256: sha(text) };
}

function imageQuery(text: string, phash: string, extra: Partial<RetrievalQuery> = {}): RetrievalQuery {
  return {
    normalisedText: text,
    textSha256: sha(text),
    imageSha256: sha(`pixels of a new upload ${text}`),
    phash,
    phashVersion: VERSION,
    quality: 100,
    textDominant: true,
    ...extra,
  };
}

const textQuery = (text: string): RetrievalQuery => ({ normalisedText: text, textSha256: sha(text) });

describe('hybridSearch', () => {
  const catalog = new InMemoryProblemCatalog();
  const phashIndex = new MultiIndexHashIndex();
  const embedder = new HashedNgramEmbedder(256);
  const vectors = new EmbeddedVectorIndex(256);
  const ports: HybridSearchPorts & IndexingPorts = { catalog, phashIndex, vectors, embedder, phashVersion: VERSION };
  const policy = { threshold: 0.85 };

  beforeAll(async () => {
    await indexProblem(imageDoc('av-linear', LINEAR, near(0)), ports);
    // A different problem printed in the same layout: its pHash is 2 bits away.
    await indexProblem(imageDoc('av-sibling', SIBLING, near(2)), ports);
    await indexProblem(textDoc('av-train', TRAIN), ports);
    await indexProblem(textDoc('av-circle', CIRCLE), ports);
    // A figure with a short caption and an unrelated hash.
    await indexProblem(imageDoc('av-figure', 'find x', hex(0x0f0f_0f0f_0f0f_0f0fn), { textDominant: false }), ports);
  });

  it('hits on the identical normalised image at 1.0', async () => {
    const result = await hybridSearch(imageQuery(LINEAR, near(0), { imageSha256: sha('pixels of av-linear') }), policy, ports);
    expect(result).toMatchObject({ outcome: 'hit', stage: 'exact_image', confidence: 1, candidate: { assetVersionId: 'av-linear', problemId: 'problem-of-av-linear' } });
    expect(result.trace).toEqual([expect.objectContaining({ stage: 'exact_image', decision: 'accepted' })]);
  });

  it('hits on an exact pHash confirmed by the text at 1.0', async () => {
    const result = await hybridSearch(imageQuery(LINEAR, near(0)), policy, ports);
    expect(result).toMatchObject({ outcome: 'hit', stage: 'phash', confidence: 1, candidate: { assetVersionId: 'av-linear' } });
  });

  it('hits on the normalised text at 0.99, typed text against an OCR\'d image included', async () => {
    const result = await hybridSearch(textQuery(TRAIN), policy, ports);
    expect(result).toMatchObject({ outcome: 'hit', stage: 'exact_text', confidence: 0.99, candidate: { assetVersionId: 'av-train' } });
    const crossModal = await hybridSearch(textQuery(LINEAR), policy, ports);
    expect(crossModal).toMatchObject({ outcome: 'hit', stage: 'exact_text', candidate: { assetVersionId: 'av-linear' } });
  });

  it('hits a near duplicate at 0.95 when the OCR texts agree despite OCR noise', async () => {
    const noisy = 'solve for x: 3x+7=22. show each step of y0ur work';
    const result = await hybridSearch(imageQuery(noisy, near(5)), policy, ports);
    expect(result).toMatchObject({ outcome: 'hit', stage: 'phash', confidence: 0.95, candidate: { assetVersionId: 'av-linear' } });
    // The sibling is nearer in pHash (distance 3 vs 5) but its numbers differ: refused, with the reason.
    expect(result.trace).toContainEqual(
      expect.objectContaining({ stage: 'phash', candidate: expect.objectContaining({ assetVersionId: 'av-sibling' }), decision: 'rejected', reason: expect.stringMatching(/numbers differ/) }),
    );
  });

  it('never serves a same-layout sibling from the pHash stage, nor from the vector stage', async () => {
    const other = 'solve for x: 9x+1=55. show each step of your work';
    const result = await hybridSearch(imageQuery(other, near(1)), policy, ports);
    expect(result.outcome).toBe('miss');
    expect(result.trace.filter((t) => t.stage === 'phash' && t.decision === 'rejected')).toHaveLength(2);
    expect(result.trace).toContainEqual(expect.objectContaining({ stage: 'vector', decision: 'rejected', reason: expect.stringMatching(/numbers differ/) }));
  });

  it('refuses pHash matches for low-quality images and other algorithm versions', async () => {
    const lowQuality = await hybridSearch(imageQuery('blank', near(0), { quality: 12 }), policy, ports);
    expect(lowQuality.trace).toContainEqual(expect.objectContaining({ stage: 'phash', decision: 'skipped', reason: expect.stringMatching(/quality 12/) }));
    expect(lowQuality.stage).not.toBe('phash');
    const otherVersion = await hybridSearch(imageQuery(LINEAR, near(0), { phashVersion: 'dct64/v0' }), policy, ports);
    expect(otherVersion.stage).not.toBe('phash');
    expect(otherVersion.trace).toContainEqual(expect.objectContaining({ stage: 'phash', decision: 'rejected', reason: expect.stringMatching(/version/) }));
  });

  it('does not trust equal text when an image carries more than its text', async () => {
    const result = await hybridSearch(textQuery('find x'), policy, ports);
    expect(result.stage).not.toBe('exact_text');
    const figureQuery = await hybridSearch(imageQuery('find x', hex(0x1234n), { textDominant: false }), policy, ports);
    expect(figureQuery.trace).toContainEqual(expect.objectContaining({ stage: 'exact_text', decision: 'skipped' }));
  });

  it('hits a paraphrase by vector cosine at the policy threshold', async () => {
    const paraphrase = 'a train travels 240 km in 3 hours. what is the average speed in km/h';
    const result = await hybridSearch(textQuery(paraphrase), policy, ports);
    expect(result).toMatchObject({ outcome: 'hit', stage: 'vector', candidate: { assetVersionId: 'av-train' } });
    expect(result.confidence).toBeGreaterThanOrEqual(0.85);
    expect(result.confidence).toBeLessThan(0.99);
  });

  it('asks for keyword ranks only when the vector tier did not hit (they cost a full-text query)', async () => {
    const keywordQueries: string[] = [];
    const counting: HybridSearchPorts = {
      ...ports,
      catalog: {
        findByImageSha256: (s) => catalog.findByImageSha256(s),
        findByTextSha256: (s) => catalog.findByTextSha256(s),
        findByMathsHashes: (h) => catalog.findByMathsHashes(h),
        getByDocIds: (ids) => catalog.getByDocIds(ids),
        getByAssetVersionIds: (ids) => catalog.getByAssetVersionIds(ids),
        keywordSearch: (text, limit, candidates) => {
          keywordQueries.push(text);
          return catalog.keywordSearch(text, limit, candidates);
        },
      },
    };
    const vectorHit = await hybridSearch(textQuery('a train travels 240 km in 3 hours. what is the average speed in km/h'), policy, counting);
    expect(vectorHit.stage).toBe('vector');
    expect(keywordQueries).toEqual([]);
    const missed = await hybridSearch(textQuery('name three noble gases and describe their electron configurations'), policy, counting);
    expect(missed.outcome).toBe('miss');
    expect(keywordQueries).toEqual(['name three noble gases and describe their electron configurations']);
  });

  it('hits by fused keyword + vector ranks at threshold − 0.02 when the cosine alone falls just short', async () => {
    const paraphrase = 'the train covers 240 km in 3 hours; find its average speed in km per hour';
    const [vector] = await embedder.embed([paraphrase]);
    const [top] = await vectors.search(vector ?? new Float32Array(256), 1);
    const cosine = top?.score ?? 0;
    // A policy threshold just above the cosine: vector alone misses, the fused ranks rescue it.
    const threshold = cosine + 0.01;
    const result = await hybridSearch(textQuery(paraphrase), { threshold }, ports);
    expect(result).toMatchObject({ outcome: 'hit', stage: 'hybrid', candidate: { assetVersionId: 'av-train' } });
    expect(result.confidence).toBeGreaterThanOrEqual(threshold - 0.02);
    expect(result.trace).toContainEqual(expect.objectContaining({ stage: 'vector', decision: 'rejected' }));
  });

  it('misses an unrelated problem and reports its best candidate and confidence', async () => {
    const result = await hybridSearch(textQuery('name three noble gases and describe their electron configurations'), policy, ports);
    expect(result.outcome).toBe('miss');
    expect(result.candidate).not.toBeNull();
    expect(result.confidence).toBeGreaterThan(0);
    expect(result.confidence).toBeLessThan(0.85);
    expect([...new Set(result.trace.map((t) => t.stage))]).toEqual(['exact_image', 'phash', 'exact_text', 'maths_signature', 'vector', 'hybrid']);
  });

  it('takes the thresholds from the policy on every call: each exact tier its own bar (spec defaults), the vector tier the retrieval threshold', async () => {
    // Spec 01: the normalised text exactly is held to its own bar (0.99), not the vector threshold.
    const byDefault = await hybridSearch(textQuery(TRAIN), { threshold: 0.995 }, ports);
    expect(byDefault).toMatchObject({ outcome: 'hit', stage: 'exact_text', confidence: 0.99 });
    const strict = await hybridSearch(textQuery(TRAIN), { threshold: 0.995, methods: { ...DEFAULT_METHOD_THRESHOLDS, exactText: 0.995 } }, ports);
    expect(strict.trace).toContainEqual(expect.objectContaining({ stage: 'exact_text', score: 0.99, decision: 'rejected' }));
    // The identical text's own embedding still clears 0.995 at the vector tier.
    expect(strict).toMatchObject({ outcome: 'hit', stage: 'vector' });
    const off = await hybridSearch(textQuery(CIRCLE), { threshold: 1.1, methods: { ...DEFAULT_METHOD_THRESHOLDS, exactText: 1.1 } }, ports);
    expect(off).toMatchObject({ outcome: 'miss', candidate: { assetVersionId: 'av-circle' } });
    expect(off.confidence).toBeGreaterThanOrEqual(0.99);
  });
});

describe('fuse', () => {
  const hit = (id: string, score: number): { id: string; score: number; payload: { asset_version_id: string } } => ({ id, score, payload: { asset_version_id: id } });

  it('gives rank 1 in both lists the full cosine, and halves a candidate only one ranker knows', () => {
    expect(fuse([hit('a', 0.84), hit('b', 0.8)], [{ docId: 1, assetVersionId: 'a', rank: 0.5 }], 60)).toMatchObject({ confidence: 0.84, vectorRank: 1, keywordRank: 1 });
    expect(fuse([hit('a', 0.84)], [], 60)?.confidence).toBeCloseTo(0.42, 6);
    expect(fuse([], [{ docId: 1, assetVersionId: 'k', rank: 1 }], 60)).toMatchObject({ confidence: 0, keywordRank: 1 });
    expect(fuse([], [], 60)).toBeUndefined();
  });
});
