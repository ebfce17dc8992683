import { CostCapExceededError, LlmCallFailedError, ProviderError, StructuredOutputError } from '@openpaw/providers';

export interface LlmFailure {
  readonly errorCode: 'llm_unavailable' | 'invalid_output';
  readonly error: string;
}

/** An LLM failure as a step's answer; anything else (a bug, the database) is thrown and retried. */
export function llmFailureOf(error: unknown): LlmFailure | undefined {
  if (error instanceof StructuredOutputError) return { errorCode: 'invalid_output', error: `the model's output did not match the schema: ${error.message}` };
  if (error instanceof LlmCallFailedError || error instanceof CostCapExceededError || error instanceof ProviderError) {
    return { errorCode: 'llm_unavailable', error: error.message };
  }
  return undefined;
}
