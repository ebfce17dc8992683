import { ProviderError } from '../llm/errors.js';
import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { SerpApiImageSearch } from './serpapi-image-search.js';

const KEY = 'serp-test-key-0123456789';
const stub = useScriptedStubServer();

const image = (n: number) => ({
  position: n,
  thumbnail: `https://serpapi.com/thumb/${n}.jpg`,
  original: `https://images.example.com/photo-${n}.jpg`,
  original_width: 1200,
  original_height: 800,
  title: `Photo ${n}`,
  link: `https://news.example.com/story-${n}`,
  source: 'news.example.com',
});

describe('SerpApiImageSearch against a SerpApi google_images wire-format server', () => {
  it('sends engine, query and key, and returns the first N originals with their pages', async () => {
    stub.script.push(() => ({ body: { search_metadata: { status: 'Success' }, images_results: [1, 2, 3, 4, 5, 6, 7].map(image) } }));
    const search = new SerpApiImageSearch({ apiKey: KEY, baseUrl: stub.server.url });
    const result = await search.search('Ada Lovelace Charles Babbage', { limit: 5 });
    const request = stub.server.requests[0]!;
    expect(request.url.pathname).toBe('/search.json');
    expect(Object.fromEntries(request.url.searchParams)).toEqual({ engine: 'google_images', q: 'Ada Lovelace Charles Babbage', api_key: KEY });
    expect(result.provider).toBe('serpapi/google_images');
    expect(result.hits).toHaveLength(5);
    expect(result.hits[0]).toEqual({
      position: 1,
      imageUrl: 'https://images.example.com/photo-1.jpg',
      sourcePageUrl: 'https://news.example.com/story-1',
      title: 'Photo 1',
      thumbnailUrl: 'https://serpapi.com/thumb/1.jpg',
      width: 1200,
      height: 800,
    });
  });

  it('treats "no results" as an empty result, and other errors as failures with the key redacted', async () => {
    stub.script.push(() => ({ body: { search_metadata: { status: 'Success' }, error: "Google hasn't returned any results for this query." } }));
    const search = new SerpApiImageSearch({ apiKey: KEY, baseUrl: stub.server.url, retry: { maxAttempts: 1 } });
    expect((await search.search('nobody at all', { limit: 5 })).hits).toEqual([]);
    stub.script.push(() => ({ status: 401, body: { error: `Invalid API key ${KEY}` } }));
    const error = await search.search('x', { limit: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    expect((error as Error).message).not.toContain(KEY);
  });

  it('retries 429 after Retry-After and 503 with backoff', async () => {
    stub.script.push(() => ({ status: 429, headers: { 'retry-after': '2' }, body: { error: 'Your account has run out of searches.' } }));
    stub.script.push(() => ({ status: 503, body: 'unavailable' }));
    stub.script.push(() => ({ body: { images_results: [image(1)] } }));
    const clock = fakeClock();
    const search = new SerpApiImageSearch({ apiKey: KEY, baseUrl: stub.server.url, clock, random: () => 0 });
    const result = await search.search('q', { limit: 5 });
    expect(result.hits).toHaveLength(1);
    expect(clock.sleeps).toEqual([2000, 500]);
    expect(stub.server.requests).toHaveLength(3);
  });

  it('reports a timeout and a malformed body as typed errors', async () => {
    const impatient = new SerpApiImageSearch({ apiKey: KEY, baseUrl: stub.server.url, retry: { maxAttempts: 1 }, timeoutMs: 150 });
    stub.script.push(() => ({ hang: true }));
    await expect(impatient.search('q', { limit: 5 })).rejects.toMatchObject({ kind: 'timeout' });
    // Answers that arrive are judged on their body, however slowly a loaded machine delivers them.
    const search = new SerpApiImageSearch({ apiKey: KEY, baseUrl: stub.server.url, retry: { maxAttempts: 1 }, timeoutMs: 30_000 });
    stub.script.push(() => ({ headers: { 'content-type': 'application/json' }, body: '{"images_results": [' }));
    await expect(search.search('q', { limit: 5 })).rejects.toMatchObject({ kind: 'malformed_response' });
    stub.script.push(() => ({ body: { images_results: 'not a list' } }));
    await expect(search.search('q', { limit: 5 })).rejects.toMatchObject({ kind: 'malformed_response' });
  });
});
