import type { z } from 'zod';

export type ChatRole = 'system' | 'user' | 'assistant';

/** An image a user message shows the model: a vision model reads it; a model that reads no images refuses the call (`bad_request`). */
export interface ChatImage {
  readonly mimeType: 'image/png' | 'image/jpeg' | 'image/webp';
  /** The encoded image. */
  readonly data: Uint8Array;
}

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
  /** Images shown with the text, in order (user messages only: an adapter refuses them on another role). */
  readonly images?: readonly ChatImage[];
}

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** Per-user API keys passed in by the caller (decrypted from the UserKeyVault); never logged. */
export interface ProviderCredentials {
  readonly openai?: string;
  readonly anthropic?: string;
  readonly gemini?: string;
}

/** A worst-case cost reserved before a call and settled at its actual cost (`RunBudget`). */
export interface BudgetReservation {
  readonly id: number;
  readonly amountUsd: number;
}

/**
 * The spending limit a call counts against (implemented by `RunBudget`). Declared here, beside the
 * options that carry it, so the port depends on nothing of the budget's implementation.
 */
export interface CostBudget {
  /** Reserves `amountUsd` for a call to `model`; throws `CostCapExceededError` when it does not fit. */
  reserve(amountUsd: number, model: string): BudgetReservation;
  settle(reservation: BudgetReservation, actualUsd: number): void;
}

export interface ChatOptions {
  /** `provider/model`, e.g. `openai/gpt-4o-mini`; the client's default model when omitted. */
  readonly model?: string;
  /** Tried in order after `model` fails; the client's default chain when omitted. */
  readonly fallbackModels?: readonly string[];
  /** Default 0.2. */
  readonly temperature?: number;
  /** Upper bound of output tokens; also what the cost cap reserves. */
  readonly maxTokens: number;
  /** Per attempt; the client's default (60 s) when omitted. */
  readonly timeoutMs?: number;
  /** Attempts per model, at most the client's retry policy's (a key test makes exactly one); the policy's when omitted. */
  readonly maxAttempts?: number;
  readonly signal?: AbortSignal;
  /** The run's cost budget; a call whose worst-case cost does not fit is refused. */
  readonly budget?: CostBudget;
  /** Per-user keys; take precedence over keys from env for their provider. */
  readonly credentials?: ProviderCredentials;
  /** Who the call is for (e.g. the user id): calls with the same key share a per-provider concurrency limit. */
  readonly concurrencyKey?: string;
  /** Where a call the provider runs in the background keeps its id, so a repeat of this call resumes it (see `BackgroundCallLedger`). */
  readonly backgroundCalls?: BackgroundCallLedger;
}

/**
 * The provider's id of a call it runs in the background (OpenAI's background responses), kept under
 * the caller's idempotency key (a research leg's command id): a repeat of the same call (the command
 * redelivered after its pod was replaced mid-call, a retry after failed polls) resumes that response
 * and is billed once, instead of starting, and billing, another.
 */
export interface BackgroundCallLedger {
  /** The id an earlier attempt of this call kept, if any. */
  recall(): Promise<string | undefined>;
  /** Keeps the id of the response just created, before it is polled. */
  keep(responseId: string): Promise<void>;
}

export type StructuredOptions = ChatOptions;

/** One try of one model, as recorded for step logs and metrics. */
export interface AttemptRecord {
  readonly model: string;
  readonly outcome: 'ok' | 'skipped_cooldown' | 'skipped_cost_cap' | 'not_configured' | ProviderErrorKind;
  readonly status?: number;
  /** The wait before this attempt (backoff or Retry-After), 0 for a model's first attempt. */
  readonly waitedMs: number;
  readonly latencyMs?: number;
}

export interface ChatResult {
  readonly text: string;
  /** `provider/model` that actually answered, as the provider reported it. */
  readonly model: string;
  /** `provider/model` that was asked for first. */
  readonly requestedModel: string;
  readonly usage: TokenUsage;
  /** Of the answering attempt. */
  readonly latencyMs: number;
  readonly costUsd: number;
  /** `table` when the model is in the price table, `fallback` when the default (conservative) price was used. */
  readonly pricing: 'table' | 'fallback';
  readonly finishReason?: string;
  readonly attempts: readonly AttemptRecord[];
}

export interface StructuredResult<T> extends Omit<ChatResult, 'text'> {
  readonly value: T;
  /** Raw text of the reply that validated. */
  readonly rawText: string;
  /** 1, or 2 when the first reply failed validation and the model was re-asked. */
  readonly calls: 1 | 2;
}

/** What a service receives: chat and schema-validated structured output, with resilience inside. */
export interface LlmClient {
  chat(messages: readonly ChatMessage[], options: ChatOptions): Promise<ChatResult>;
  structured<S extends z.ZodType>(messages: readonly ChatMessage[], schema: S, options: StructuredOptions): Promise<StructuredResult<z.output<S>>>;
  /** The default model and chain, for logs and health output. */
  describe(): { readonly defaultModel: string; readonly fallbackModels: readonly string[]; readonly providers: readonly string[] };
}

// ---- the adapter side: one ChatModel per provider, wrapped by the resilient client ----

/** A JSON Schema object (as produced by `z.toJSONSchema`). */
export type JsonSchema = { readonly [key: string]: unknown };

export interface ChatModelRequest {
  /** The model name without the provider prefix. */
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly temperature: number;
  readonly maxTokens: number;
  /** Aborts on caller cancellation or on the attempt's timeout (reason: a `TimeoutError` DOMException). */
  readonly signal: AbortSignal;
  /** Ask for JSON matching this schema, with the provider's native JSON mode where it has one. */
  readonly responseSchema?: { readonly name: string; readonly schema: JsonSchema };
  /** A per-user key for this call; the adapter's own key otherwise. */
  readonly apiKey?: string;
  /** See `ChatOptions.backgroundCalls`. */
  readonly backgroundCalls?: BackgroundCallLedger;
}

export interface ChatModelResponse {
  readonly text: string;
  /** The model name the provider reported (without prefix), e.g. a dated snapshot. */
  readonly model: string;
  readonly usage: TokenUsage;
  readonly finishReason?: string;
}

export type ProviderErrorKind =
  | 'rate_limited'
  | 'server_error'
  | 'timeout'
  | 'network'
  | 'malformed_response'
  | 'auth'
  | 'no_credentials'
  | 'bad_request'
  | 'not_found'
  | 'aborted';

/** One provider's adapter. Throws only `ProviderError`. */
export interface ChatModel {
  /** `openai`, `anthropic`, `gemini` or `local`: the prefix of its model ids. */
  readonly provider: string;
  /** True when it has a key of its own (from env); per-user keys can still be passed per call. */
  readonly hasDefaultCredentials: boolean;
  complete(request: ChatModelRequest): Promise<ChatModelResponse>;
}
