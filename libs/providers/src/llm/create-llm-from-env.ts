import type { Clock, RandomSource } from '../shared/clock.js';
import { type Env, envHttpUrl, envList, envPositiveInt, envValue } from '../shared/env.js';
import { type ProviderLogger, silentLogger } from '../shared/logger.js';
import { AnthropicChatModel } from './anthropic-chat-model.js';
import type { ProviderCooldown } from './cooldown.js';
import { GeminiChatModel } from './gemini-chat-model.js';
import { LOCAL_MODEL_ID, LocalChatModel } from './local/local-chat-model.js';
import { parseModelRef } from './model-ref.js';
import { OpenAiChatModel } from './openai-chat-model.js';
import { priceTableFromJson } from './pricing.js';
import { type LlmConcurrencyLimits, ResilientLlmClient } from './resilient-llm-client.js';

/** The default model of each provider when `OPENPAW_LLM_MODEL` does not name one. */
export const DEFAULT_MODELS = {
  openai: 'openai/gpt-4o-mini',
  anthropic: 'anthropic/claude-haiku-4-5',
  gemini: 'gemini/gemini-2.5-flash',
} as const;

export interface LlmFactoryOptions {
  readonly logger?: ProviderLogger;
  readonly clock?: Clock;
  readonly random?: RandomSource;
  readonly cooldown?: ProviderCooldown;
}

/** The LLM providers a model id may name: the three real adapters and the local model. */
const LLM_PROVIDERS = ['openai', 'anthropic', 'gemini', 'local'] as const;

/** The LLM settings of the environment, validated (see `createLlmFromEnv` for the variables). */
export interface LlmSettings {
  readonly openai: { readonly apiKey?: string; readonly baseURL?: string };
  readonly anthropic: { readonly apiKey?: string; readonly baseURL?: string };
  readonly gemini: { readonly apiKey?: string; readonly baseUrl?: string };
  /** Providers with credentials in env (an OpenAI base URL counts: a compatible server may need no key), in preference order. */
  readonly configured: readonly (keyof typeof DEFAULT_MODELS)[];
  readonly defaultModel: string;
  readonly fallbackModels: readonly string[];
  readonly prices: ReturnType<typeof priceTableFromJson>;
  readonly maxAttempts: number;
  readonly timeoutMs: number;
  readonly concurrency: LlmConcurrencyLimits;
}

/** A model id of a known provider, else an error naming `setting`. */
function knownModel(setting: string, id: string): string {
  let provider: string;
  try {
    provider = parseModelRef(id).provider;
  } catch (error) {
    throw new Error(`${setting}: ${(error as Error).message}`);
  }
  if (!(LLM_PROVIDERS as readonly string[]).includes(provider)) throw new Error(`${setting}: unknown provider "${provider}" in "${id}" (known: ${LLM_PROVIDERS.join(', ')})`);
  return id;
}

/**
 * Reads and validates the LLM settings without building anything: what `createLlmFromEnv` would
 * refuse is refused here, naming the variable, so a service can check them before it starts.
 */
export function llmSettingsFromEnv(env: Env): LlmSettings {
  const openai = { ...opt('apiKey', envValue(env, 'OPENAI_API_KEY')), ...opt('baseURL', envHttpUrl(env, 'OPENAI_BASE_URL')) };
  const anthropic = { ...opt('apiKey', envValue(env, 'ANTHROPIC_API_KEY')), ...opt('baseURL', envHttpUrl(env, 'ANTHROPIC_BASE_URL')) };
  const gemini = { ...opt('apiKey', envValue(env, 'GEMINI_API_KEY') ?? envValue(env, 'GOOGLE_API_KEY')), ...opt('baseUrl', envHttpUrl(env, 'GEMINI_BASE_URL')) };
  const configured = (
    [
      ['openai', openai.apiKey !== undefined || openai.baseURL !== undefined],
      ['anthropic', anthropic.apiKey !== undefined],
      ['gemini', gemini.apiKey !== undefined],
    ] as const
  )
    .filter(([, hasCredentials]) => hasCredentials)
    .map(([provider]) => provider);
  const explicitModel = envValue(env, 'OPENPAW_LLM_MODEL');
  const defaultModel = explicitModel !== undefined ? knownModel('OPENPAW_LLM_MODEL', explicitModel) : configured[0] !== undefined ? DEFAULT_MODELS[configured[0]] : LOCAL_MODEL_ID;
  const explicitFallbacks = envList(env, 'OPENPAW_LLM_FALLBACK_MODELS').map((id) => knownModel('OPENPAW_LLM_FALLBACK_MODELS', id));
  return {
    openai,
    anthropic,
    gemini,
    configured,
    defaultModel,
    fallbackModels: explicitFallbacks.length > 0 ? explicitFallbacks : configured.map((p) => DEFAULT_MODELS[p]).filter((id) => id !== defaultModel),
    prices: priceTableFromJson(envValue(env, 'OPENPAW_LLM_PRICES')),
    maxAttempts: envPositiveInt(env, 'OPENPAW_LLM_MAX_ATTEMPTS', 3),
    timeoutMs: envPositiveInt(env, 'OPENPAW_LLM_TIMEOUT_MS', 60_000),
    concurrency: llmConcurrencyFromEnv(env),
  };
}

/**
 * The LLM client for a service, from env (validated by `llmSettingsFromEnv`):
 *
 * - `OPENAI_API_KEY`, `OPENAI_BASE_URL` (any OpenAI-compatible server), `ANTHROPIC_API_KEY`,
 *   `ANTHROPIC_BASE_URL`, `GEMINI_API_KEY` (or `GOOGLE_API_KEY`), `GEMINI_BASE_URL`;
 * - `OPENPAW_LLM_MODEL` (`provider/model`; `local/deterministic` forces the local model),
 *   `OPENPAW_LLM_FALLBACK_MODELS` (comma-separated), `OPENPAW_LLM_PRICES` (JSON price overrides),
 *   `OPENPAW_LLM_MAX_ATTEMPTS`, `OPENPAW_LLM_TIMEOUT_MS`.
 *
 * With no provider credentials it uses the local deterministic model and says so in the log. All
 * three real adapters are always wired, so per-user keys (`ChatOptions.credentials`) work even when
 * env has none; the local model is never added to a chain silently.
 */
export function createLlmFromEnv(env: Env, options: LlmFactoryOptions = {}): ResilientLlmClient {
  const logger = options.logger ?? silentLogger;
  const settings = llmSettingsFromEnv(env);
  const { configured, defaultModel, fallbackModels } = settings;
  const clock = options.clock !== undefined ? { clock: options.clock } : {};

  const models = [
    new OpenAiChatModel({ ...settings.openai, ...clock }),
    new AnthropicChatModel({ ...settings.anthropic, ...clock }),
    new GeminiChatModel({ ...settings.gemini, ...clock }),
    new LocalChatModel(),
  ];

  const client = new ResilientLlmClient({
    models,
    defaultModel,
    fallbackModels,
    prices: settings.prices,
    retry: { maxAttempts: settings.maxAttempts },
    defaultTimeoutMs: settings.timeoutMs,
    concurrency: settings.concurrency,
    logger,
    ...clock,
    ...(options.random !== undefined ? { random: options.random } : {}),
    ...(options.cooldown !== undefined ? { cooldown: options.cooldown } : {}),
  });

  const local = parseModelRef(defaultModel).provider === 'local';
  logger.info(
    { defaultModel, fallbackModels, local, providersWithCredentials: configured },
    local
      ? `LLM: using the LOCAL deterministic model ${defaultModel} (${configured.length === 0 ? 'no provider credentials configured' : 'forced by OPENPAW_LLM_MODEL'}); it solves arithmetic and linear equations and extracts from prompts, nothing more`
      : `LLM: using ${defaultModel}${fallbackModels.length > 0 ? ` with fallbacks ${fallbackModels.join(', ')}` : ''}`,
  );
  for (const id of [defaultModel, ...fallbackModels]) {
    const provider = parseModelRef(id).provider;
    if (provider !== 'local' && !configured.includes(provider as keyof typeof DEFAULT_MODELS)) {
      logger.warn({ model: id }, `LLM: ${id} has no credentials in env; it answers only calls that pass a per-user key`);
    }
  }
  return client;
}

function opt<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

/** Default calls in flight per provider: paid APIs' rate limits are the usual wall; the local model is CPU. */
export const DEFAULT_LLM_CONCURRENCY: Readonly<Record<string, number>> = { openai: 16, anthropic: 8, gemini: 8, local: 4 };

/**
 * `OPENPAW_LLM_CONCURRENCY` (`openai=16,anthropic=8,...`, merged over the defaults) and
 * `OPENPAW_LLM_CONCURRENCY_PER_KEY` (calls per provider per caller, e.g. per user; default 4).
 */
export function llmConcurrencyFromEnv(env: Env): LlmConcurrencyLimits {
  const perProvider: Record<string, number> = { ...DEFAULT_LLM_CONCURRENCY };
  for (const pair of envList(env, 'OPENPAW_LLM_CONCURRENCY')) {
    const [provider, value] = pair.split('=').map((part) => part.trim());
    const n = Number(value);
    if (provider === undefined || provider === '' || !Number.isInteger(n) || n < 1) {
      throw new Error(`OPENPAW_LLM_CONCURRENCY: "${pair}" is not <provider>=<positive integer>`);
    }
    perProvider[provider] = n;
  }
  return { perProvider, perKeyPerProvider: envPositiveInt(env, 'OPENPAW_LLM_CONCURRENCY_PER_KEY', 4) };
}
