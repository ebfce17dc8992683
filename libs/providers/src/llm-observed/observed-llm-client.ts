import type { z } from 'zod';
import type { AttemptRecord, ChatMessage, ChatOptions, ChatResult, LlmClient, StructuredOptions, StructuredResult } from '../llm/port.js';

/** One try of one model (`provider/model`), as the client recorded it. */
export interface LlmAttemptObservation {
  readonly provider: string;
  readonly model: string;
  readonly outcome: AttemptRecord['outcome'];
  /** Absent for a model skipped without a request (cooldown, cost cap, no key). */
  readonly latencyMs?: number;
}

/** A call a model answered: its tokens and cost (the answering model's). */
export interface LlmAnswerObservation {
  readonly provider: string;
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

/** Told about every LLM call a service makes (its metrics). Must not throw. */
export interface LlmCallObserver {
  onAttempt(attempt: LlmAttemptObservation): void;
  onAnswered(answer: LlmAnswerObservation): void;
}

function providerOf(model: string): string {
  const slash = model.indexOf('/');
  return slash > 0 ? model.slice(0, slash) : 'unknown';
}

function reportAttempts(observer: LlmCallObserver, attempts: readonly AttemptRecord[]): void {
  for (const a of attempts) observer.onAttempt({ provider: providerOf(a.model), model: a.model, outcome: a.outcome, ...(a.latencyMs === undefined ? {} : { latencyMs: a.latencyMs }) });
}

/** The attempts a failed call carries (`LlmCallFailedError`, `CostCapExceededError`), else none. */
function attemptsOf(error: unknown): readonly AttemptRecord[] {
  const attempts = typeof error === 'object' && error !== null ? (error as { attempts?: unknown }).attempts : undefined;
  return Array.isArray(attempts) ? (attempts as AttemptRecord[]) : [];
}

/**
 * `client` with every call reported to `observer`, at the service's edge (the client's internals are
 * untouched): each attempt with its model, outcome and latency — of a failed call too — and, for an
 * answered call, the answering model's tokens and cost.
 */
export function observeLlmCalls(client: LlmClient, observer: LlmCallObserver): LlmClient {
  const observed = async <R extends Omit<ChatResult, 'text'>>(call: () => Promise<R>): Promise<R> => {
    let result: R;
    try {
      result = await call();
    } catch (error) {
      reportAttempts(observer, attemptsOf(error));
      throw error;
    }
    reportAttempts(observer, result.attempts);
    observer.onAnswered({ provider: providerOf(result.model), model: result.model, inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens, costUsd: result.costUsd });
    return result;
  };
  return {
    chat: (messages: readonly ChatMessage[], options: ChatOptions) => observed(() => client.chat(messages, options)),
    structured: <S extends z.ZodType>(messages: readonly ChatMessage[], schema: S, options: StructuredOptions): Promise<StructuredResult<z.output<S>>> =>
      observed(() => client.structured(messages, schema, options)),
    describe: () => client.describe(),
  };
}
