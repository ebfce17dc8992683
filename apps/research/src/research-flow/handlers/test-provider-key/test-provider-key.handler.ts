import { Inject, Injectable } from '@nestjs/common';
import { type MessageData, RESEARCH_KEY_TEST_REASON_CHARS, type ResearchKeyTestOutcome, type ResearchProviderKeyTested, type TestResearchProviderKey } from '@openpaw/contracts';
import { type Clock, LlmCallFailedError, type LlmClient, ProviderError, type ProviderErrorKind, redactSecrets } from '@openpaw/providers';
import { RESEARCH_CLOCK, RESEARCH_LLM } from '../../../ports.js';
import { FLOW_KEYS, FLOW_PROVIDERS, type KeyOpener } from '../../ports.js';
import type { ResearchProviders } from '../../research-providers.js';

type Test = MessageData<typeof TestResearchProviderKey>;
type Report = MessageData<typeof ResearchProviderKeyTested>;

/** How long the provider has to answer the test call (a research leg waits far longer; a user is waiting here). */
export const KEY_TEST_TIMEOUT_MS = 20_000;
/** Enough output for any model to answer at all (thinking models spend a few tokens first); costs a fraction of a cent. */
const KEY_TEST_MAX_TOKENS = 16;

/** What a provider's failure means to the user testing their key. */
function outcomeOf(kind: ProviderErrorKind): ResearchKeyTestOutcome {
  switch (kind) {
    case 'auth':
    case 'no_credentials':
      return 'auth';
    case 'rate_limited':
      return 'quota';
    case 'not_found':
      return 'model_unknown';
    case 'network':
    case 'timeout':
    case 'aborted':
      return 'unreachable';
    case 'server_error':
    case 'bad_request':
    case 'malformed_response':
      return 'provider_error';
  }
}

/**
 * Tests a user's stored model-provider key (the console's and the CLI's "Test"): opens it, makes one
 * minimal call with it to the model research legs of that provider use, through the same LLM client
 * (one attempt, no fallback model, no retry), and says how it went. The key never leaves this
 * method: the reason is the provider's message with the key (and anything shaped like a key) redacted.
 */
@Injectable()
export class TestProviderKeyHandler {
  constructor(
    @Inject(FLOW_KEYS) private readonly keys: KeyOpener,
    @Inject(FLOW_PROVIDERS) private readonly providers: ResearchProviders,
    @Inject(RESEARCH_LLM) private readonly llm: LlmClient,
    @Inject(RESEARCH_CLOCK) private readonly clock: Clock,
  ) {}

  async execute(test: Test): Promise<Report> {
    const model = this.providers.modelOf(test.provider);
    const report = (outcome: ResearchKeyTestOutcome, latencyMs: number | null, reason: string | null, secret?: string): Report => ({
      userId: test.userId,
      provider: test.provider,
      testId: test.testId,
      testedAt: new Date(this.clock.now()).toISOString(),
      outcome,
      model,
      latencyMs,
      reason: reason === null ? null : redactSecrets(reason, [secret]).slice(0, RESEARCH_KEY_TEST_REASON_CHARS),
    });
    let apiKey: string;
    try {
      apiKey = this.keys.open(test.userId, test.provider, test.key);
    } catch {
      return report('auth', null, `the stored ${test.provider} key cannot be opened here (sealed for another research service key?): enter it again`);
    }
    const started = this.clock.now();
    try {
      await this.llm.chat([{ role: 'user', content: 'Reply with the word ok.' }], {
        model,
        fallbackModels: [],
        maxAttempts: 1,
        maxTokens: KEY_TEST_MAX_TOKENS,
        temperature: 0,
        timeoutMs: KEY_TEST_TIMEOUT_MS,
        credentials: { [test.provider]: apiKey },
        concurrencyKey: test.userId,
      });
      return report('ok', this.clock.now() - started, null);
    } catch (error) {
      const latencyMs = this.clock.now() - started;
      const failure = error instanceof LlmCallFailedError ? error.lastError : error;
      if (failure instanceof ProviderError) return report(outcomeOf(failure.kind), latencyMs, failure.message, apiKey);
      if (error instanceof LlmCallFailedError && error.attempts.some((a) => a.outcome === 'skipped_cooldown')) {
        return report('provider_error', null, `recent calls to ${test.provider} with this key kept failing, so it is resting for a minute: test again shortly`);
      }
      return report('provider_error', latencyMs, error instanceof Error ? error.message : String(error), apiKey);
    }
  }
}
