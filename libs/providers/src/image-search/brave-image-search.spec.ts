import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { BraveImageSearch } from './brave-image-search.js';

const KEY = 'brave-test-key-0123456789';
const stub = useScriptedStubServer();

const result = (n: number) => ({
  type: 'image_result',
  title: `Photo ${n}`,
  url: `https://news.example.com/story-${n}`,
  source: 'news.example.com',
  thumbnail: { src: `https://imgs.search.brave.com/${n}` },
  properties: { url: `https://images.example.com/photo-${n}.jpg`, placeholder: `https://imgs.search.brave.com/p/${n}`, width: 640, height: 480 },
  meta_url: { hostname: 'news.example.com' },
});

describe('BraveImageSearch against a Brave Image Search wire-format server', () => {
  it('sends the subscription token and count, and maps properties.url to the image', async () => {
    stub.script.push(() => ({ body: { type: 'images', query: { original: 'a b' }, results: [1, 2, 3, 4, 5, 6].map(result) } }));
    const search = new BraveImageSearch({ apiKey: KEY, baseUrl: stub.server.url });
    const found = await search.search('a b', { limit: 5 });
    const request = stub.server.requests[0]!;
    expect(request.url.pathname).toBe('/res/v1/images/search');
    expect(request.headers['x-subscription-token']).toBe(KEY);
    expect(request.headers.accept).toBe('application/json');
    expect(request.url.searchParams.get('q')).toBe('a b');
    expect(request.url.searchParams.get('count')).toBe('5');
    expect(found.hits.map((h) => h.imageUrl)).toEqual([1, 2, 3, 4, 5].map((n) => `https://images.example.com/photo-${n}.jpg`));
    expect(found.hits[1]).toMatchObject({ position: 2, sourcePageUrl: 'https://news.example.com/story-2', thumbnailUrl: 'https://imgs.search.brave.com/2', width: 640 });
  });

  it('repairs result text PostgreSQL cannot hold (NUL dropped, a lone surrogate as U+FFFD)', async () => {
    stub.script.push(() => ({ body: { type: 'images', results: [{ ...result(1), title: 'Ada\u0000 Stone \udc00at the gala' }] } }));
    const found = await new BraveImageSearch({ apiKey: KEY, baseUrl: stub.server.url }).search('ada', { limit: 5 });
    expect(found.hits.map((h) => h.title)).toEqual(['Ada Stone \ufffdat the gala']);
  });

  it('skips results without an http(s) image URL', async () => {
    stub.script.push(() => ({ body: { results: [{ title: 'no image' }, { ...result(2), properties: { url: 'data:image/png;base64,AAAA' } }, result(3)] } }));
    const found = await new BraveImageSearch({ apiKey: KEY, baseUrl: stub.server.url }).search('q', { limit: 5 });
    expect(found.hits).toEqual([expect.objectContaining({ position: 1, imageUrl: 'https://images.example.com/photo-3.jpg' })]);
  });

  it('retries 429 and 500, then gives up with a typed error', async () => {
    const clock = fakeClock();
    const search = new BraveImageSearch({ apiKey: KEY, baseUrl: stub.server.url, clock, random: () => 1, retry: { maxAttempts: 3 } });
    stub.script.push(() => ({ status: 429, headers: { 'retry-after': '1' }, body: { type: 'ErrorResponse', error: { code: 'RATE_LIMITED', detail: 'Request rate limit exceeded' } } }));
    stub.script.push(() => ({ status: 500, body: { error: { message: 'boom' } } }));
    stub.script.push(() => ({ status: 502, body: 'bad gateway' }));
    await expect(search.search('q', { limit: 5 })).rejects.toMatchObject({ kind: 'server_error', status: 502 });
    expect(clock.sleeps).toEqual([1000, 1000]);
  });

  it('times out a hanging server', async () => {
    stub.script.push(() => ({ hang: true }));
    const search = new BraveImageSearch({ apiKey: KEY, baseUrl: stub.server.url, retry: { maxAttempts: 1 }, timeoutMs: 150 });
    await expect(search.search('q', { limit: 5 })).rejects.toMatchObject({ kind: 'timeout' });
  });
});
