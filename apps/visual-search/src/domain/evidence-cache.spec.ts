import { InMemoryEvidenceCache, lookUp } from './evidence-cache.js';

const REKOGNITION = 'aws/rekognition';
/** The search a refutation below was made with, and what a VerifyEdge asking the same would run. */
const SEARCH = { queries: ['Bob Cat'], imagesPerQuery: 5 };
const REFUTED = { status: 'refuted' as const, ids: ['c-bob', 'c-cat'] as [string, string], threshold: 80, ...SEARCH };
const edge = {
  from: { name: 'Ada', celebrityId: 'c-ada' },
  to: { name: 'Bob', celebrityId: 'c-bob' },
  edgeConf: 91,
  evidence: [{ imageUrl: 'https://i/1.jpg', query: 'Ada Bob', phash: '00000000000000ff', confidenceFrom: 99, confidenceTo: 91 }],
};

describe('evidence cache', () => {
  it('answers a verified edge in either direction, oriented to the question', async () => {
    const cache = new InMemoryEvidenceCache();
    await cache.put(REKOGNITION, { status: 'verified', edge });
    expect(await lookUp(cache, REKOGNITION, 'c-ada', 'c-bob', 80, SEARCH)).toEqual({ status: 'verified', edge });
    const reversed = await lookUp(cache, REKOGNITION, 'c-bob', 'c-ada', 80, SEARCH);
    expect(reversed).toMatchObject({ status: 'verified', edge: { from: { celebrityId: 'c-bob' }, to: { celebrityId: 'c-ada' }, evidence: [{ confidenceFrom: 91, confidenceTo: 99 }] } });
    expect(await lookUp(cache, REKOGNITION, 'c-ada', 'c-bob', 95, SEARCH)).toBeUndefined();
  });

  it("is keyed by the recogniser's identity: another recogniser's ids are other people", async () => {
    const cache = new InMemoryEvidenceCache();
    await cache.put(REKOGNITION, { status: 'verified', edge });
    expect(await lookUp(cache, 'local/glyph-recognizer', 'c-ada', 'c-bob', 80, SEARCH)).toBeUndefined();
  });

  it('keeps a refutation for thresholds at or above the one it was made at', async () => {
    const cache = new InMemoryEvidenceCache();
    await cache.put(REKOGNITION, REFUTED);
    expect(await lookUp(cache, REKOGNITION, 'c-cat', 'c-bob', 80, SEARCH)).toMatchObject({ status: 'refuted' });
    expect(await lookUp(cache, REKOGNITION, 'c-cat', 'c-bob', 90, SEARCH)).toMatchObject({ status: 'refuted' });
    expect(await lookUp(cache, REKOGNITION, 'c-cat', 'c-bob', 70, SEARCH)).toBeUndefined();
    expect(await lookUp(cache, REKOGNITION, 'c-cat', 'c-dan', 80, SEARCH)).toBeUndefined();
  });

  it('answers with a refutation only the search it was made with: other queries, or more hits, find other photos', async () => {
    const cache = new InMemoryEvidenceCache();
    await cache.put(REKOGNITION, { ...REFUTED, queries: ['Bob Cat', 'Bob Cat event'] });
    expect(await lookUp(cache, REKOGNITION, 'c-bob', 'c-cat', 80, { queries: ['Bob Cat event'], imagesPerQuery: 5 })).toMatchObject({ status: 'refuted' });
    expect(await lookUp(cache, REKOGNITION, 'c-bob', 'c-cat', 80, { queries: ['Bob Cat', 'Bob Cat backstage'], imagesPerQuery: 5 })).toBeUndefined();
    expect(await lookUp(cache, REKOGNITION, 'c-bob', 'c-cat', 80, { queries: ['Bob Cat'], imagesPerQuery: 10 })).toBeUndefined();
    // A refutation stored before it named its search answers nothing.
    const { queries: _queries, imagesPerQuery: _images, ...unnamed } = REFUTED;
    await cache.put(REKOGNITION, unnamed as typeof REFUTED);
    expect(await lookUp(cache, REKOGNITION, 'c-bob', 'c-cat', 80, SEARCH)).toBeUndefined();
  });

  it('believes a refutation for less time than a confirmation', async () => {
    let now = 1_000_000;
    const cache = new InMemoryEvidenceCache({ refutationTtlMs: 60_000, now: () => now });
    await cache.put(REKOGNITION, REFUTED);
    await cache.put(REKOGNITION, { status: 'verified', edge });
    now += 59_999;
    expect(await lookUp(cache, REKOGNITION, 'c-bob', 'c-cat', 80, SEARCH)).toMatchObject({ status: 'refuted' });
    now += 1;
    expect(await lookUp(cache, REKOGNITION, 'c-bob', 'c-cat', 80, SEARCH)).toBeUndefined();
    expect(await lookUp(cache, REKOGNITION, 'c-ada', 'c-bob', 80, SEARCH)).toMatchObject({ status: 'verified' });
  });
});
