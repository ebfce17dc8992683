import type { KeyedResearchProvider, LegFailureReason } from '@openpaw/contracts';
import { CostCapExceededError, LlmCallFailedError, type LlmClient, ProviderError, type ProviderErrorKind, RunBudget } from '@openpaw/providers';
import { type LegReport, type LegRequest, LegFailure, legMessages, type Researcher, stoppedAtOutputLimit } from './researcher.js';

export interface LlmResearcherOptions {
  /** `provider/model` of each keyed provider's legs. */
  readonly models: Readonly<Record<KeyedResearchProvider, string>>;
  readonly maxTokens: number;
}

/**
 * A leg on a real provider, through the LLM port with the user's own key: the resilient client
 * retries 429/5xx/timeouts with backoff (its own attempts), counts against the provider's and the
 * user's concurrency limits, and refuses a call the leg's cost cap cannot cover. No fallback to
 * another provider: a leg is its provider's answer or a failure.
 */
export class LlmResearcher implements Researcher {
  constructor(
    private readonly llm: LlmClient,
    private readonly options: LlmResearcherOptions,
  ) {}

  async research(request: LegRequest): Promise<LegReport> {
    const provider = request.provider;
    if (provider === 'local') throw new Error('the local leg is the extractive researcher, not a model');
    if (request.apiKey === null) throw new LegFailure('no_key', `no ${provider} API key for this user`);
    const budget = new RunBudget(request.runId, request.costCapUsd);
    try {
      const result = await this.llm.chat(legMessages(request.prompt, request.externalReports), {
        model: this.options.models[provider],
        fallbackModels: [],
        maxTokens: this.options.maxTokens,
        temperature: 0.3,
        credentials: { [provider]: request.apiKey },
        concurrencyKey: request.userId,
        signal: request.signal,
        budget,
        // One attempt may take the whole cap (deep research answers slowly); the signal bounds the leg.
        timeoutMs: 24 * 60 * 60 * 1000,
        // A retry, or the leg's command redelivered after a rollout, resumes the provider's background response: billed once.
        ...(request.backgroundCalls === undefined ? {} : { backgroundCalls: request.backgroundCalls }),
      });
      return { model: result.model, content: result.text, local: false, usage: result.usage, costUsd: result.costUsd, cutShort: stoppedAtOutputLimit(result.finishReason) };
    } catch (error) {
      throw legFailureOf(error, request.signal, budget.spentUsd);
    }
  }
}

/** What a failed model call means for the leg (or the synthesis). */
export function legFailureOf(error: unknown, signal: AbortSignal, costUsd = 0): LegFailure {
  if (error instanceof LegFailure) return error;
  if (signal.aborted) return abortedLeg(signal, costUsd);
  if (error instanceof CostCapExceededError) return new LegFailure('cost_cap', error.message, costUsd);
  if (error instanceof LlmCallFailedError) {
    const last = error.lastError instanceof ProviderError ? error.lastError : undefined;
    const skippedCap = error.attempts.some((a) => a.outcome === 'skipped_cost_cap');
    if (last === undefined && skippedCap) return new LegFailure('cost_cap', error.message, costUsd);
    return new LegFailure(last === undefined ? 'unavailable' : reasonOf(last.kind), last?.message ?? error.message, costUsd);
  }
  if (error instanceof ProviderError) return new LegFailure(reasonOf(error.kind), error.message, costUsd);
  return new LegFailure('unavailable', error instanceof Error ? error.message : String(error), costUsd);
}

/** An aborted leg: its cap (a TimeoutError reason) or a cancel. */
export function abortedLeg(signal: AbortSignal, costUsd = 0): LegFailure {
  const reason: unknown = signal.reason;
  const timedOut = typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError';
  return timedOut ? new LegFailure('timeout', 'the leg reached its hard cap and was stopped', costUsd) : new LegFailure('cancelled', 'stopped: the research was cancelled or failed', costUsd);
}

function reasonOf(kind: ProviderErrorKind): LegFailureReason {
  switch (kind) {
    case 'rate_limited':
      return 'rate_limited';
    case 'server_error':
      return 'server_error';
    case 'timeout':
      return 'timeout';
    case 'auth':
      return 'auth';
    case 'no_credentials':
      return 'no_key';
    case 'bad_request':
    case 'not_found':
      return 'bad_request';
    case 'aborted':
      return 'cancelled';
    case 'network':
    case 'malformed_response':
      return 'unavailable';
  }
}
