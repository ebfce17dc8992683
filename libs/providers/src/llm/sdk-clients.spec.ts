import { apiKeyDigest, forgetApiKey, SdkClientCache } from './sdk-clients.js';

describe('SdkClientCache', () => {
  const made: string[] = [];
  const counting = (capacity?: number): SdkClientCache<{ readonly key: string }> =>
    new SdkClientCache((apiKey) => {
      made.push(apiKey);
      return Promise.resolve({ key: apiKey });
    }, capacity);
  beforeEach(() => made.splice(0));

  it('builds one client per model and key, and hands it out again', async () => {
    const cache = counting();
    const first = await cache.client('gpt-a', 'sk-1');
    expect(await cache.client('gpt-a', 'sk-1')).toBe(first);
    expect(await cache.client('gpt-b', 'sk-1')).not.toBe(first);
    expect(await cache.client('gpt-a', 'sk-2')).not.toBe(first);
    expect(made).toEqual(['sk-1', 'sk-1', 'sk-2']);
  });

  it('holds at most its capacity, dropping the least recently used', async () => {
    const cache = counting(2);
    await cache.client('m', 'k1');
    await cache.client('m', 'k2');
    await cache.client('m', 'k1'); // k1 is now the most recent
    await cache.client('m', 'k3'); // drops k2
    expect(cache.size).toBe(2);
    await cache.client('m', 'k1');
    await cache.client('m', 'k2');
    expect(made).toEqual(['k1', 'k2', 'k3', 'k2']);
  });

  it('forgets every client of a deleted or rotated key, in every cache, and no other', async () => {
    const a = counting();
    const b = counting();
    await a.client('m1', 'old');
    await a.client('m2', 'old');
    await b.client('m1', 'old');
    await a.client('m1', 'other');
    forgetApiKey('old');
    expect([a.size, b.size]).toEqual([1, 0]);
    await a.client('m1', 'old');
    expect(made.filter((k) => k === 'old')).toHaveLength(4);
  });

  it('does not keep a client that failed to be built', async () => {
    let fail = true;
    const cache = new SdkClientCache((apiKey) => (fail ? Promise.reject(new Error('no SDK')) : Promise.resolve({ apiKey })));
    await expect(cache.client('m', 'k')).rejects.toThrow('no SDK');
    await Promise.resolve();
    expect(cache.size).toBe(0);
    fail = false;
    await expect(cache.client('m', 'k')).resolves.toEqual({ apiKey: 'k' });
  });

  it('names keys by digest: the raw key is not part of any cache key', () => {
    expect(apiKeyDigest('sk-secret')).toMatch(/^[0-9a-f]{64}$/);
    expect(apiKeyDigest('sk-secret')).not.toContain('sk-secret');
  });
});
