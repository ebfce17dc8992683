import type OpenAI from 'openai';
import { type Clock, type RandomSource, systemClock } from '../shared/clock.js';
import { defaultRetryPolicy, retrying, type RetryPolicy } from '../shared/retry.js';
import { ProviderError } from '../llm/errors.js';
import { costUsd, defaultPriceTable, lookupPrice, type PriceTable } from '../llm/pricing.js';
import { providerFailure } from '../llm/provider-failure.js';
import type { Embedder, EmbeddingResult } from './port.js';

export interface OpenAiEmbedderConfig {
  /** e.g. `text-embedding-3-small`, or the model name on an OpenAI-compatible server. */
  readonly model: string;
  readonly apiKey?: string;
  /** Any OpenAI-compatible embeddings server (vLLM, Ollama, llama.cpp, TEI) as `http://host:port/v1`. */
  readonly baseURL?: string;
  /** Ask the model for shorter vectors (text-embedding-3 models support it). */
  readonly dimensions?: number;
  /** Texts per request; default 256. */
  readonly batchSize?: number;
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly prices?: PriceTable;
  readonly clock?: Clock;
  readonly random?: RandomSource;
}

/** Embeddings through the `openai` SDK (its retries off; retried here on 429/5xx/timeouts). */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  private learntDimensions: number | undefined;
  /** Built on the first request: the SDK loads only in a process that embeds through OpenAI. */
  private client: Promise<OpenAI> | undefined;
  private readonly clock: Clock;
  private readonly retry: RetryPolicy;

  constructor(private readonly config: OpenAiEmbedderConfig) {
    this.model = `openai/${config.model}`;
    this.learntDimensions = config.dimensions;
    this.clock = config.clock ?? systemClock;
    this.retry = { ...defaultRetryPolicy, ...config.retry };
    if (config.apiKey === undefined && config.baseURL === undefined) throw new Error('OpenAiEmbedder needs an API key or a base URL');
  }

  private sdkClient(): Promise<OpenAI> {
    this.client ??= import('openai').then(
      ({ default: OpenAI }) =>
        new OpenAI({
          apiKey: this.config.apiKey ?? 'no-key-required',
          baseURL: this.config.baseURL ?? 'https://api.openai.com/v1',
          maxRetries: 0,
          timeout: 24 * 60 * 60 * 1000,
          organization: null,
          project: null,
        }),
    );
    return this.client;
  }

  get dimensions(): number | undefined {
    return this.learntDimensions;
  }

  async embed(texts: readonly string[], options: { readonly signal?: AbortSignal } = {}): Promise<EmbeddingResult> {
    const batchSize = this.config.batchSize ?? 256;
    const vectors: Float32Array[] = [];
    let inputTokens = 0;
    for (let start = 0; start < texts.length; start += batchSize) {
      const batch = texts.slice(start, start + batchSize);
      const response = await retrying(() => this.request(batch, options.signal), {
        policy: this.retry,
        random: this.config.random ?? Math.random,
        sleep: (ms, signal) => this.clock.sleep(ms, signal),
        classify: (error) => (error instanceof ProviderError ? { retry: error.retryable, ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}) } : { retry: false }),
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
      });
      vectors.push(...response.vectors);
      inputTokens += response.inputTokens;
    }
    const dimensions = vectors[0]?.length ?? this.learntDimensions ?? 0;
    if (vectors.some((v) => v.length !== dimensions)) throw new ProviderError('malformed_response', 'openai', 'embeddings of one call differ in length');
    this.learntDimensions = dimensions;
    const price = lookupPrice(this.config.prices ?? defaultPriceTable, this.model).price;
    return { vectors, model: this.model, dimensions, usage: { inputTokens }, costUsd: costUsd(price, { inputTokens, outputTokens: 0 }) };
  }

  private async request(batch: readonly string[], caller: AbortSignal | undefined): Promise<{ vectors: Float32Array[]; inputTokens: number }> {
    const timeout = AbortSignal.timeout(this.config.timeoutMs ?? 30_000);
    const signal = caller === undefined ? timeout : AbortSignal.any([caller, timeout]);
    let response: OpenAI.CreateEmbeddingResponse;
    try {
      response = await (await this.sdkClient()).embeddings.create(
        {
          model: this.config.model,
          input: [...batch],
          // Floats, not the SDK's default base64: not every compatible server speaks base64.
          encoding_format: 'float',
          ...(this.config.dimensions !== undefined ? { dimensions: this.config.dimensions } : {}),
        },
        { signal, maxRetries: 0 },
      );
    } catch (error) {
      throw providerFailure(error, 'openai', signal, this.clock.now(), [this.config.apiKey]);
    }
    const data = Array.isArray(response.data) ? [...response.data].sort((a, b) => a.index - b.index) : [];
    if (data.length !== batch.length || data.some((d) => !Array.isArray(d.embedding))) {
      throw new ProviderError('malformed_response', 'openai', `expected ${batch.length} embeddings, got ${data.length}`);
    }
    return { vectors: data.map((d) => Float32Array.from(d.embedding)), inputTokens: response.usage?.prompt_tokens ?? 0 };
  }
}
