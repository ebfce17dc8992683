import { CostCapExceededError, LlmCallFailedError, ProviderError, StructuredOutputError } from '@openpaw/providers';
import { cannotSolve, failureFromError, incompleteAnswer } from './solve-failure.js';

const fresh = { deadlineExceeded: false, earlierInvalidOutputs: 0 };

describe('failureFromError', () => {
  it('maps a refused budget to cost_cap_exceeded, not retryable', () => {
    const error = new CostCapExceededError('run', 0, 0, 0.0012, 'openai/gpt-4o-mini');
    expect(failureFromError(error, fresh)).toEqual({ errorCode: 'cost_cap_exceeded', retryable: false, detail: expect.stringContaining('cost cap') });
  });

  it('maps a reply that failed validation to invalid_output, retryable once per run', () => {
    const error = new StructuredOutputError('{}', ['steps: required'], 'openai/gpt-4o-mini', { inputTokens: 10, outputTokens: 2 }, 0.001, '{}');
    expect(failureFromError(error, fresh)).toMatchObject({ errorCode: 'invalid_output', retryable: true });
    expect(failureFromError(error, { ...fresh, earlierInvalidOutputs: 1 })).toMatchObject({ errorCode: 'invalid_output', retryable: false });
  });

  it('maps a chain of failed models to llm_unavailable, or timeout when every try timed out', () => {
    const unavailable = new LlmCallFailedError(
      [
        { model: 'openai/gpt-4o-mini', outcome: 'rate_limited', waitedMs: 0 },
        { model: 'anthropic/claude-haiku-4-5', outcome: 'timeout', waitedMs: 0 },
      ],
      new ProviderError('timeout', 'anthropic', 'timed out'),
    );
    expect(failureFromError(unavailable, fresh)).toMatchObject({ errorCode: 'llm_unavailable', retryable: true });
    const timedOut = new LlmCallFailedError(
      [
        { model: 'openai/gpt-4o-mini', outcome: 'timeout', waitedMs: 0 },
        { model: 'gemini/gemini-2.5-flash', outcome: 'skipped_cooldown', waitedMs: 0 },
      ],
      new ProviderError('timeout', 'openai', 'timed out'),
    );
    expect(failureFromError(timedOut, fresh)).toMatchObject({ errorCode: 'timeout', retryable: true });
  });

  it("maps the attempt's own deadline to timeout", () => {
    expect(failureFromError(new ProviderError('aborted', 'openai', 'aborted'), { ...fresh, deadlineExceeded: true })).toMatchObject({
      errorCode: 'timeout',
      retryable: true,
    });
  });

  it('leaves errors that are not the LLM’s (database, storage) to be retried by redelivery', () => {
    expect(failureFromError(new Error('connection refused'), fresh)).toBeUndefined();
  });
});

describe('cannotSolve / incompleteAnswer', () => {
  it('reports the model’s reason, not retryable', () => {
    expect(cannotSolve('the equation is not linear')).toEqual({ errorCode: 'cannot_solve', retryable: false, detail: 'the equation is not linear' });
    expect(cannotSolve(null).detail).toBe('the model could not solve the problem');
  });

  it('counts a claimed solution without steps or answer as invalid output', () => {
    expect(incompleteAnswer('gave no steps', 0)).toMatchObject({ errorCode: 'invalid_output', retryable: true });
    expect(incompleteAnswer('gave no steps', 1)).toMatchObject({ retryable: false });
  });
});
