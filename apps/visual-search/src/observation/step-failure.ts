import { OpenPawError } from '@openpaw/contracts';
import { ProviderError } from '@openpaw/providers';
import type { StepUsage } from './image-observer.js';

export type StepErrorCode = 'search_unavailable' | 'recognition_unavailable';

/** A provider stayed unavailable (after its own retries) or refused the call: the step cannot finish. */
export class StepProviderFailure extends OpenPawError {
  override readonly name = 'StepProviderFailure';
  constructor(
    readonly code: StepErrorCode,
    readonly retryable: boolean,
    readonly detail: string,
    readonly usage: StepUsage,
  ) {
    super(`${code}: ${detail}`);
  }

  static from(code: StepErrorCode, error: unknown, usage: StepUsage): StepProviderFailure {
    if (error instanceof ProviderError) return new StepProviderFailure(code, error.retryable, `${error.kind}: ${error.message}`.slice(0, 480), usage);
    return new StepProviderFailure(code, true, (error instanceof Error ? error.message : String(error)).slice(0, 480), usage);
  }
}
