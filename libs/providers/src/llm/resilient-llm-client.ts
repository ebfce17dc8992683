import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { type Clock, type RandomSource, systemClock } from '../shared/clock.js';
import { type ProviderLogger, silentLogger } from '../shared/logger.js';
import { backoffDelayMs, defaultRetryPolicy, type RetryPolicy } from '../shared/retry.js';
import { toStorableText } from '../shared/storable-text.js';
import { defaultCooldownPolicy, type CooldownPolicy, ProviderCooldown } from './cooldown.js';
import { CostCapExceededError, LlmCallFailedError, ProviderError, StructuredOutputError } from './errors.js';
import { modelId, parseModelRef } from './model-ref.js';
import type {
  AttemptRecord,
  ChatMessage,
  ChatModel,
  ChatOptions,
  ChatResult,
  JsonSchema,
  LlmClient,
  ProviderCredentials,
  StructuredOptions,
  StructuredResult,
} from './port.js';
import { type ConcurrencyKey, ConcurrencyLimiter } from '../shared/concurrency-limiter.js';
import { costUsd, defaultPriceTable, estimateInputTokens, lookupPrice, type PriceTable } from './pricing.js';
import { jsonSchemaOf, reaskMessages, validateReply, withSchemaInstruction } from './structured-output.js';

export interface ResilientLlmClientConfig {
  /** One adapter per provider; model ids are routed by their `provider/` prefix. */
  readonly models: readonly ChatModel[];
  readonly defaultModel: string;
  readonly fallbackModels?: readonly string[];
  readonly prices?: PriceTable;
  readonly retry?: Partial<RetryPolicy>;
  /** A policy, or a shared tracker so several clients of one process cool providers together. */
  readonly cooldown?: CooldownPolicy | ProviderCooldown;
  readonly defaultTimeoutMs?: number;
  readonly defaultTemperature?: number;
  readonly clock?: Clock;
  readonly random?: RandomSource;
  readonly logger?: ProviderLogger;
  /**
   * Flow control: calls in flight at once per provider (e.g. `{ openai: 16, local: 4 }`; a provider
   * not named is unlimited) and per provider per caller (`ChatOptions.concurrencyKey`, e.g. the user).
   * A call beyond a limit waits for a slot (FIFO) before its attempt starts; its timeout runs from there.
   */
  readonly concurrency?: LlmConcurrencyLimits;
  /** Share one limiter among several clients of a process (the limits hold across them). */
  readonly limiter?: ConcurrencyLimiter;
}

export interface LlmConcurrencyLimits {
  readonly perProvider?: Readonly<Record<string, number>>;
  readonly perKeyPerProvider?: number;
}

interface ChatOutcome extends ChatResult {
  /** The chain entry that answered (not the provider's snapshot name). */
  readonly answeredChainId: string;
}

/**
 * The one place LLM resilience lives: per model, retries with backoff and jitter on retryable
 * failures (honouring Retry-After on the injected clock); then the next model of the fallback chain;
 * a per-run cost cap checked before every attempt; a cooldown for a provider that keeps failing.
 * Adapters below it make exactly one request per call (their SDK retries are off).
 */
export class ResilientLlmClient implements LlmClient {
  private readonly adapters = new Map<string, ChatModel>();
  private readonly retry: RetryPolicy;
  private readonly cooldown: ProviderCooldown;
  private readonly prices: PriceTable;
  private readonly clock: Clock;
  private readonly random: RandomSource;
  private readonly logger: ProviderLogger;
  private readonly defaultModel: string;
  private readonly fallbackModels: readonly string[];
  private readonly defaultTimeoutMs: number;
  private readonly defaultTemperature: number;
  private readonly concurrency: LlmConcurrencyLimits;
  private readonly limiter: ConcurrencyLimiter;

  constructor(config: ResilientLlmClientConfig) {
    for (const model of config.models) this.adapters.set(model.provider, model);
    parseModelRef(config.defaultModel);
    config.fallbackModels?.forEach(parseModelRef);
    this.defaultModel = config.defaultModel;
    this.fallbackModels = config.fallbackModels ?? [];
    this.retry = { ...defaultRetryPolicy, ...config.retry };
    this.cooldown = config.cooldown instanceof ProviderCooldown ? config.cooldown : new ProviderCooldown(config.cooldown ?? defaultCooldownPolicy);
    this.prices = config.prices ?? defaultPriceTable;
    this.clock = config.clock ?? systemClock;
    this.random = config.random ?? Math.random;
    this.logger = config.logger ?? silentLogger;
    this.defaultTimeoutMs = config.defaultTimeoutMs ?? 60_000;
    this.defaultTemperature = config.defaultTemperature ?? 0.2;
    this.concurrency = config.concurrency ?? {};
    this.limiter = config.limiter ?? new ConcurrencyLimiter();
  }

  /** The concurrency keys a call to `provider` counts against. */
  private concurrencyKeysOf(provider: string, concurrencyKey: string | undefined): ConcurrencyKey[] {
    const keys: ConcurrencyKey[] = [];
    const perProvider = this.concurrency.perProvider?.[provider];
    if (perProvider !== undefined) keys.push({ key: `provider:${provider}`, limit: perProvider });
    const perKey = this.concurrency.perKeyPerProvider;
    if (perKey !== undefined && concurrencyKey !== undefined) keys.push({ key: `provider:${provider}:key:${concurrencyKey}`, limit: perKey });
    return keys;
  }

  describe(): { defaultModel: string; fallbackModels: readonly string[]; providers: readonly string[] } {
    return { defaultModel: this.defaultModel, fallbackModels: this.fallbackModels, providers: [...this.adapters.keys()] };
  }

  async chat(messages: readonly ChatMessage[], options: ChatOptions): Promise<ChatResult> {
    const { answeredChainId: _answered, ...result } = await this.complete(messages, options, undefined);
    return result;
  }

  async structured<S extends z.ZodType>(messages: readonly ChatMessage[], schema: S, options: StructuredOptions): Promise<StructuredResult<z.output<S>>> {
    const jsonSchema = jsonSchemaOf(schema);
    const format = { name: 'response', schema: jsonSchema };
    const prompt = withSchemaInstruction(messages, jsonSchema);
    const first = await this.complete(prompt, options, format);
    const firstCheck = validateReply(first.text, schema);
    if (firstCheck.ok) return structuredResult(first, firstCheck.value, 1, first);

    this.logger.warn({ model: first.model, issues: firstCheck.issues.slice(0, 5) }, 'structured output failed validation; re-asking once');
    // Re-ask the model that answered first, keeping the rest of the chain behind it.
    const chain = this.chainOf(options).filter((id) => id !== first.answeredChainId);
    const second = await this.complete(reaskMessages(prompt, first.text, firstCheck.issues), { ...options, model: first.answeredChainId, fallbackModels: chain }, format);
    const secondCheck = validateReply(second.text, schema);
    if (secondCheck.ok) return structuredResult(second, secondCheck.value, 2, first);
    throw new StructuredOutputError(
      second.text,
      secondCheck.issues,
      second.model,
      { inputTokens: first.usage.inputTokens + second.usage.inputTokens, outputTokens: first.usage.outputTokens + second.usage.outputTokens },
      first.costUsd + second.costUsd,
      first.text,
    );
  }

  private chainOf(options: ChatOptions): string[] {
    const chain = [options.model ?? this.defaultModel, ...(options.fallbackModels ?? this.fallbackModels)];
    return [...new Set(chain)];
  }

  private async complete(messages: readonly ChatMessage[], options: ChatOptions, responseSchema: { name: string; schema: JsonSchema } | undefined): Promise<ChatOutcome> {
    const chain = this.chainOf(options);
    const attempts: AttemptRecord[] = [];
    let lastError: Error | undefined;
    let costCapError: CostCapExceededError | undefined;
    const inputTokenEstimate = estimateInputTokens(messages.map((m) => m.content).concat(responseSchema ? [JSON.stringify(responseSchema.schema)] : []));

    for (const chainId of chain) {
      const ref = parseModelRef(chainId);
      const adapter = this.adapters.get(ref.provider);
      if (adapter === undefined) {
        attempts.push({ model: chainId, outcome: 'not_configured', waitedMs: 0 });
        continue;
      }
      const apiKey = credentialFor(options.credentials, ref.provider);
      const cooldownKey = apiKey === undefined ? ref.provider : `${ref.provider}#${fingerprint(apiKey)}`;
      if (this.cooldown.remainingMs(cooldownKey, this.clock.now()) > 0) {
        attempts.push({ model: chainId, outcome: 'skipped_cooldown', waitedMs: 0 });
        continue;
      }

      let waitedMs = 0;
      const maxAttempts = Math.max(1, Math.min(options.maxAttempts ?? this.retry.maxAttempts, this.retry.maxAttempts));
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        const worstCase = costUsd(lookupPrice(this.prices, chainId).price, { inputTokens: inputTokenEstimate, outputTokens: options.maxTokens });
        let reservation;
        try {
          reservation = options.budget?.reserve(worstCase, chainId);
        } catch (error) {
          if (!(error instanceof CostCapExceededError)) throw error;
          costCapError = error;
          attempts.push({ model: chainId, outcome: 'skipped_cost_cap', waitedMs });
          this.logger.warn({ model: chainId, runId: error.runId, capUsd: error.capUsd, requestedUsd: error.requestedUsd }, 'llm call refused by cost cap');
          break;
        }

        let started = this.clock.now();
        try {
          const response = await this.limiter.run(
            this.concurrencyKeysOf(ref.provider, options.concurrencyKey),
            () => {
              // The attempt's clock and timeout start once it holds its slots, not while it queues.
              started = this.clock.now();
              const signal = attemptSignal(options.signal, options.timeoutMs ?? this.defaultTimeoutMs);
              return adapter.complete({
                model: ref.model,
                messages,
                temperature: options.temperature ?? this.defaultTemperature,
                maxTokens: options.maxTokens,
                signal,
                ...(responseSchema ? { responseSchema } : {}),
                ...(apiKey !== undefined ? { apiKey } : {}),
                ...(options.backgroundCalls !== undefined ? { backgroundCalls: options.backgroundCalls } : {}),
              });
            },
            options.signal,
          );
          const latencyMs = this.clock.now() - started;
          const answered = modelId(ref.provider, response.model === '' ? ref.model : response.model);
          let price = lookupPrice(this.prices, answered);
          if (price.source === 'fallback') price = lookupPrice(this.prices, chainId);
          const cost = costUsd(price.price, response.usage);
          if (reservation !== undefined) options.budget?.settle(reservation, cost);
          this.cooldown.recordSuccess(cooldownKey);
          attempts.push({ model: chainId, outcome: 'ok', waitedMs, latencyMs });
          if (price.source === 'fallback') this.logger.warn({ model: answered }, 'model missing from the price table; cost uses the fallback price');
          this.logger.info(
            {
              model: answered,
              requestedModel: chain[0],
              local: ref.provider === 'local',
              latencyMs,
              inputTokens: response.usage.inputTokens,
              outputTokens: response.usage.outputTokens,
              costUsd: cost,
              attempts: attempts.length,
            },
            ref.provider === 'local' ? 'llm call answered by the local deterministic model' : 'llm call answered',
          );
          return {
            // Provider text is repaired at this one boundary before anyone stores it (NUL, lone surrogates).
            text: toStorableText(response.text),
            model: answered,
            requestedModel: chain[0] ?? chainId,
            usage: response.usage,
            latencyMs,
            costUsd: cost,
            pricing: price.source,
            ...(response.finishReason !== undefined ? { finishReason: response.finishReason } : {}),
            attempts,
            answeredChainId: chainId,
          };
        } catch (error) {
          if (reservation !== undefined) options.budget?.settle(reservation, 0);
          const failure = error instanceof ProviderError ? error : new ProviderError('malformed_response', ref.provider, errorMessage(error));
          if (failure.kind === 'aborted' || options.signal?.aborted === true) throw failure;
          attempts.push({
            model: chainId,
            outcome: failure.kind,
            waitedMs,
            latencyMs: this.clock.now() - started,
            ...(failure.status !== undefined ? { status: failure.status } : {}),
          });
          lastError = failure;
          this.logger.warn({ model: chainId, attempt, kind: failure.kind, status: failure.status, err: failure.message }, 'llm attempt failed');
          if (!failure.retryable) break;
          if (this.cooldown.recordFailure(cooldownKey, this.clock.now())) {
            this.logger.warn({ provider: ref.provider, cooldownMs: this.cooldown.remainingMs(cooldownKey, this.clock.now()) }, 'provider keeps failing; cooling it down');
            break;
          }
          if (attempt === maxAttempts) break;
          const retryAfter = failure.retryAfterMs;
          if (retryAfter !== undefined && retryAfter > this.retry.maxRetryAfterMs) break;
          waitedMs = retryAfter ?? backoffDelayMs(attempt, this.retry, this.random);
          await this.clock.sleep(waitedMs, options.signal);
        }
      }
    }

    if (costCapError !== undefined) throw costCapError.withAttempts(attempts);
    throw new LlmCallFailedError(attempts, lastError);
  }
}

function structuredResult<T>(answer: ChatOutcome, value: T, calls: 1 | 2, first: ChatOutcome): StructuredResult<T> {
  const { text, answeredChainId: _chain, ...rest } = answer;
  if (calls === 1) return { ...rest, value, rawText: text, calls };
  return {
    ...rest,
    usage: { inputTokens: first.usage.inputTokens + answer.usage.inputTokens, outputTokens: first.usage.outputTokens + answer.usage.outputTokens },
    costUsd: first.costUsd + answer.costUsd,
    attempts: [...first.attempts, ...answer.attempts],
    value,
    rawText: text,
    calls,
  };
}

function credentialFor(credentials: ProviderCredentials | undefined, provider: string): string | undefined {
  if (credentials === undefined) return undefined;
  switch (provider) {
    case 'openai':
      return credentials.openai;
    case 'anthropic':
      return credentials.anthropic;
    case 'gemini':
      return credentials.gemini;
    default:
      return undefined;
  }
}

/** A short, non-reversible tag of a key, for cooldown bookkeeping only. */
function fingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 12);
}

function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return caller === undefined ? timeout : AbortSignal.any([caller, timeout]);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
