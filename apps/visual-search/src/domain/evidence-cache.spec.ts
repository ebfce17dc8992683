import { InMemoryEvidenceCache, lookUp } from './evidence-cache.js';

const REKOGNITION = 'aws/rekognition';
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
    expect(await lookUp(cache, REKOGNITION, 'c-ada', 'c-bob', 80)).toEqual({ status: 'verified', edge });
    const reversed = await lookUp(cache, REKOGNITION, 'c-bob', 'c-ada', 80);
    expect(reversed).toMatchObject({ status: 'verified', edge: { from: { celebrityId: 'c-bob' }, to: { celebrityId: 'c-ada' }, evidence: [{ confidenceFrom: 91, confidenceTo: 99 }] } });
    expect(await lookUp(cache, REKOGNITION, 'c-ada', 'c-bob', 95)).toBeUndefined();
  });

  it("is keyed by the recogniser's identity: another recogniser's ids are other people", async () => {
    const cache = new InMemoryEvidenceCache();
    await cache.put(REKOGNITION, { status: 'verified', edge });
    expect(await lookUp(cache, 'local/glyph-recognizer', 'c-ada', 'c-bob', 80)).toBeUndefined();
  });

  it('keeps a refutation for thresholds at or above the one it was made at', async () => {
    const cache = new InMemoryEvidenceCache();
    await cache.put(REKOGNITION, { status: 'refuted', ids: ['c-bob', 'c-cat'], threshold: 80 });
    expect(await lookUp(cache, REKOGNITION, 'c-cat', 'c-bob', 80)).toMatchObject({ status: 'refuted' });
    expect(await lookUp(cache, REKOGNITION, 'c-cat', 'c-bob', 90)).toMatchObject({ status: 'refuted' });
    expect(await lookUp(cache, REKOGNITION, 'c-cat', 'c-bob', 70)).toBeUndefined();
    expect(await lookUp(cache, REKOGNITION, 'c-cat', 'c-dan', 80)).toBeUndefined();
  });

  it('believes a refutation for less time than a confirmation', async () => {
    let now = 1_000_000;
    const cache = new InMemoryEvidenceCache({ refutationTtlMs: 60_000, now: () => now });
    await cache.put(REKOGNITION, { status: 'refuted', ids: ['c-bob', 'c-cat'], threshold: 80 });
    await cache.put(REKOGNITION, { status: 'verified', edge });
    now += 59_999;
    expect(await lookUp(cache, REKOGNITION, 'c-bob', 'c-cat', 80)).toMatchObject({ status: 'refuted' });
    now += 1;
    expect(await lookUp(cache, REKOGNITION, 'c-bob', 'c-cat', 80)).toBeUndefined();
    expect(await lookUp(cache, REKOGNITION, 'c-ada', 'c-bob', 80)).toMatchObject({ status: 'verified' });
  });
});
