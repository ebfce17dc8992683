import { randomBytes } from 'node:crypto';
import { createLlmFromEnv, InMemoryUserKeyStore, systemClock, UserKeyVault } from '@openpaw/providers';
import { InMemoryKeptReplyStore } from '@openpaw/testkit';
import { InMemoryBackgroundCalls } from '../background-calls.js';
import { LegCancellations } from '../cancellation/leg-cancellations.js';
import { researchFlowSettingsFromEnv } from '../config.js';
import { ExecuteResearchLegHandler } from '../handlers/execute-research-leg/execute-research-leg.handler.js';
import { GenerateResearchTitleHandler } from '../handlers/generate-research-title/generate-research-title.handler.js';
import { SynthesizeResearchHandler } from '../handlers/synthesize-research/synthesize-research.handler.js';
import { TestProviderKeyHandler } from '../handlers/test-provider-key/test-provider-key.handler.js';
import { createResearchProviders, type ResearchProviders } from '../research-providers.js';
import { ReportSharer } from '../share/report-sharer.js';
import type { BlobStore } from '@openpaw/providers';

export interface FlowFixture {
  readonly vault: UserKeyVault;
  readonly replies: InMemoryKeptReplyStore;
  readonly cancellations: LegCancellations;
  /** The legs' background calls (provider-side ids by command id). */
  readonly backgroundCalls: InMemoryBackgroundCalls;
  readonly providers: ResearchProviders;
  readonly legs: ExecuteResearchLegHandler;
  readonly syntheses: SynthesizeResearchHandler;
  readonly titles: GenerateResearchTitleHandler;
  readonly keyTests: TestProviderKeyHandler;
  /** The user's key for `provider`, sealed as a command carries it. */
  seal(userId: string, provider: 'openai' | 'anthropic' | 'gemini', apiKey: string): Promise<string>;
}

/** The research flow's handlers on real adapters (the LLM client from env, e.g. pointed at wire servers), in-memory replies. */
export function flowFixture(env: NodeJS.ProcessEnv, blobs: BlobStore | null = null): FlowFixture {
  const vault = new UserKeyVault(randomBytes(32), new InMemoryUserKeyStore());
  const replies = new InMemoryKeptReplyStore();
  const cancellations = new LegCancellations();
  const backgroundCalls = new InMemoryBackgroundCalls();
  const settings = researchFlowSettingsFromEnv(env);
  const llm = createLlmFromEnv({ OPENPAW_LLM_MAX_ATTEMPTS: '2', ...env });
  const providers = createResearchProviders(llm, settings);
  return {
    vault,
    replies,
    cancellations,
    backgroundCalls,
    providers,
    legs: new ExecuteResearchLegHandler(replies, vault, providers, cancellations, systemClock, backgroundCalls),
    syntheses: new SynthesizeResearchHandler(replies, vault, providers, cancellations, new ReportSharer(blobs, settings.shareTtlSeconds), systemClock),
    titles: new GenerateResearchTitleHandler(replies, vault, providers, llm, settings),
    keyTests: new TestProviderKeyHandler(vault, providers, llm, systemClock),
    seal: async (userId, provider, apiKey) => {
      await vault.put(userId, provider, apiKey);
      return (await vault.sealed(userId, provider)) as string;
    },
  };
}
