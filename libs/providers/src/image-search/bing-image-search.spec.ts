import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { BingImageSearch } from './bing-image-search.js';

const KEY = 'bing-test-key-0123456789';
const stub = useScriptedStubServer();

const value = (n: number) => ({
  name: `Photo ${n}`,
  contentUrl: `https://images.example.com/photo-${n}.jpg`,
  hostPageUrl: `https://news.example.com/story-${n}`,
  thumbnailUrl: `https://tse.mm.bing.net/th?id=${n}`,
  width: 1024,
  height: 768,
  encodingFormat: 'jpeg',
});

describe('BingImageSearch against a Bing Image Search v7 wire-format server', () => {
  it('sends the subscription key and count, and maps contentUrl and hostPageUrl', async () => {
    stub.script.push(() => ({ body: { _type: 'Images', totalEstimatedMatches: 40, value: [1, 2, 3, 4, 5, 6].map(value) } }));
    const found = await new BingImageSearch({ apiKey: KEY, baseUrl: stub.server.url }).search('a b', { limit: 5 });
    const request = stub.server.requests[0]!;
    expect(request.url.pathname).toBe('/v7.0/images/search');
    expect(request.headers['ocp-apim-subscription-key']).toBe(KEY);
    expect(request.url.searchParams.get('q')).toBe('a b');
    expect(request.url.searchParams.get('count')).toBe('5');
    expect(found.provider).toBe('bing/images');
    expect(found.hits).toHaveLength(5);
    expect(found.hits[4]).toEqual({
      position: 5,
      imageUrl: 'https://images.example.com/photo-5.jpg',
      sourcePageUrl: 'https://news.example.com/story-5',
      title: 'Photo 5',
      thumbnailUrl: 'https://tse.mm.bing.net/th?id=5',
      width: 1024,
      height: 768,
    });
  });

  it('retries a 429 after Retry-After, fails fast on 403, times out a hanging server', async () => {
    const clock = fakeClock();
    const search = new BingImageSearch({ apiKey: KEY, baseUrl: stub.server.url, clock, timeoutMs: 150 });
    stub.script.push(() => ({ status: 429, headers: { 'retry-after': '3' }, body: { error: { code: 'RateLimitExceeded', message: 'Rate limit is exceeded.' } } }));
    stub.script.push(() => ({ body: { _type: 'Images', value: [value(1)] } }));
    expect((await search.search('q', { limit: 5 })).hits).toHaveLength(1);
    expect(clock.sleeps).toEqual([3000]);

    stub.script.push(() => ({ status: 403, body: { error: { code: 'InvalidSubscriptionKey', message: 'Access denied due to invalid subscription key.' } } }));
    await expect(search.search('q', { limit: 5 })).rejects.toMatchObject({ kind: 'auth', status: 403 });
    expect(stub.server.requests).toHaveLength(3);

    const once = new BingImageSearch({ apiKey: KEY, baseUrl: stub.server.url, timeoutMs: 150, retry: { maxAttempts: 1 } });
    stub.script.push(() => ({ hang: true }));
    await expect(once.search('q', { limit: 5 })).rejects.toMatchObject({ kind: 'timeout' });
  });
});
