import { OpenPawError } from '@openpaw/contracts';
import { redactSecrets } from '../shared/redact.js';
import type { AttemptRecord, ProviderErrorKind, TokenUsage } from './port.js';

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set(['rate_limited', 'server_error', 'timeout', 'network']);

/** The one error an adapter throws: a normalised provider failure, with secrets redacted from its message. */
export class ProviderError extends OpenPawError {
  readonly code = 'llm_provider_error';
  override readonly name = 'ProviderError';
  readonly retryable: boolean;

  constructor(
    readonly kind: ProviderErrorKind,
    readonly provider: string,
    message: string,
    readonly details: { readonly status?: number; readonly retryAfterMs?: number; readonly secrets?: readonly (string | undefined)[] } = {},
  ) {
    super(redactSecrets(`${provider}: ${message}`, details.secrets ?? []));
    this.retryable = RETRYABLE.has(kind);
    // The secrets were only needed for redaction; do not keep them on the error.
    this.details = { status: details.status, retryAfterMs: details.retryAfterMs };
  }

  get status(): number | undefined {
    return this.details.status;
  }

  get retryAfterMs(): number | undefined {
    return this.details.retryAfterMs;
  }
}

/** Every model of the chain failed (or was skipped); carries what was tried. */
export class LlmCallFailedError extends OpenPawError {
  readonly code = 'llm_call_failed';
  override readonly name = 'LlmCallFailedError';
  constructor(
    readonly attempts: readonly AttemptRecord[],
    readonly lastError: Error | undefined,
  ) {
    super(`every model failed: ${attempts.map((a) => `${a.model}:${a.outcome}`).join(', ')}${lastError ? ` (last: ${lastError.message})` : ''}`);
  }
}

/** The run's budget cannot cover the worst-case cost of the call; nothing was sent. */
export class CostCapExceededError extends OpenPawError {
  readonly code = 'cost_cap_exceeded';
  override readonly name = 'CostCapExceededError';
  constructor(
    readonly runId: string,
    readonly capUsd: number,
    readonly committedUsd: number,
    readonly requestedUsd: number,
    readonly model: string,
    readonly attempts: readonly AttemptRecord[] = [],
  ) {
    super(
      `cost cap of run ${runId} exceeded: ${model} may cost up to $${requestedUsd.toFixed(6)}, ` +
        `$${Math.max(0, capUsd - committedUsd).toFixed(6)} of $${capUsd.toFixed(6)} left`,
    );
  }

  withAttempts(attempts: readonly AttemptRecord[]): CostCapExceededError {
    return new CostCapExceededError(this.runId, this.capUsd, this.committedUsd, this.requestedUsd, this.model, attempts);
  }
}

/** The model's reply did not validate against the schema, even after one re-ask. */
export class StructuredOutputError extends OpenPawError {
  readonly code = 'invalid_structured_output';
  override readonly name = 'StructuredOutputError';
  constructor(
    /** The last reply, as the model sent it. */
    readonly rawText: string,
    /** Validation problems of the last reply, one line each. */
    readonly issues: readonly string[],
    readonly model: string,
    /** Summed over both calls; they were paid for. */
    readonly usage: TokenUsage,
    readonly costUsd: number,
    /** The first reply, which triggered the re-ask. */
    readonly firstRawText: string,
  ) {
    super(`structured output from ${model} failed validation after a re-ask: ${issues.slice(0, 5).join('; ')}`);
  }
}
