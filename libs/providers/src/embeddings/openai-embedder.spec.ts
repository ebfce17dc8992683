import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { ProviderError } from '../llm/errors.js';
import { OpenAiEmbedder } from './openai-embedder.js';

const KEY = 'sk-embed-test-0123456789';
const stub = useScriptedStubServer();

function embeddings(vectors: number[][], promptTokens: number) {
  return {
    status: 200,
    body: {
      object: 'list',
      // out of order on purpose: the adapter must sort by index
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })).reverse(),
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    },
  };
}


describe('OpenAiEmbedder against an OpenAI embeddings wire-format server', () => {
  it('sends the documented request and returns vectors in input order with usage and cost', async () => {
    stub.script.push(() => embeddings([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], 9));
    const embedder = new OpenAiEmbedder({ model: 'text-embedding-3-small', apiKey: KEY, baseURL: `${stub.server.url}/v1`, dimensions: 3 });
    const result = await embedder.embed(['first text', 'second text']);
    const request = stub.server.requests[0]!;
    expect(request.url.pathname).toBe('/v1/embeddings');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.json()).toEqual({ model: 'text-embedding-3-small', input: ['first text', 'second text'], encoding_format: 'float', dimensions: 3 });
    expect(result.model).toBe('openai/text-embedding-3-small');
    expect(result.dimensions).toBe(3);
    expect([...result.vectors[0]!]).toEqual([0.1, 0.2, 0.3].map(Math.fround));
    expect([...result.vectors[1]!]).toEqual([0.4, 0.5, 0.6].map(Math.fround));
    expect(result.usage).toEqual({ inputTokens: 9 });
    expect(result.costUsd).toBeCloseTo((9 * 0.02) / 1e6, 15);
  });

  it('batches large inputs', async () => {
    stub.script.push(() => embeddings([[1], [2]], 2));
    stub.script.push(() => embeddings([[3]], 1));
    const embedder = new OpenAiEmbedder({ model: 'nomic-embed-text', baseURL: `${stub.server.url}/v1`, batchSize: 2 });
    const result = await embedder.embed(['a', 'b', 'c']);
    expect(result.vectors.map((v) => v[0])).toEqual([1, 2, 3]);
    expect(stub.server.requests.map((r) => (r.json() as { input: string[] }).input)).toEqual([['a', 'b'], ['c']]);
    expect(embedder.dimensions).toBe(1);
  });

  it('retries a 429 after Retry-After and a 500 with backoff', async () => {
    stub.script.push(() => ({ status: 429, headers: { 'retry-after': '4' }, body: { error: { message: 'slow down' } } }));
    stub.script.push(() => ({ status: 500, body: { error: { message: 'oops' } } }));
    stub.script.push(() => embeddings([[1, 0]], 1));
    const clock = fakeClock();
    const embedder = new OpenAiEmbedder({ model: 'text-embedding-3-small', apiKey: KEY, baseURL: `${stub.server.url}/v1`, clock, random: () => 0 });
    await embedder.embed(['x']);
    expect(clock.sleeps).toEqual([4000, 500]);
  });

  it('reports malformed JSON and timeouts as typed errors', async () => {
    stub.script.push(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"data": [' }));
    const embedder = new OpenAiEmbedder({ model: 'm', apiKey: KEY, baseURL: `${stub.server.url}/v1`, retry: { maxAttempts: 1 }, timeoutMs: 150 });
    await expect(embedder.embed(['x'])).rejects.toMatchObject({ kind: 'malformed_response' });
    stub.script.push(() => ({ hang: true }));
    const error = await embedder.embed(['x']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'timeout' });
  });
});
