import { DEFAULT_MODELS } from '@openpaw/providers';
import { researchSettingsFromEnv } from './config.js';

describe('researchSettingsFromEnv', () => {
  it('has a default for every setting, the local NATS on every lane, and keeps the environment for the providers', () => {
    const settings = researchSettingsFromEnv({ OPENPAW_LLM_PROVIDER: 'local' });
    expect(settings).toMatchObject({
      providerEnv: { OPENPAW_LLM_PROVIDER: 'local' },
      messaging: { natsUrl: ['nats://127.0.0.1:4222'], streams: { mode: 'create-missing' } },
      databaseUrl: 'postgres://openpaw@127.0.0.1:5432/openpaw',
      poolSize: 4,
      perSourceLimit: 25,
      sourceDeadlineMs: 45_000,
      searchClaimMs: 5_000,
      maxTokens: 2_000,
      scoreBatchSize: 20,
      stepDeadlineMs: 100_000,
      paperSearchConcurrency: 4,
      // Stored paper lists: kept 30 days after their run ended, swept hourly.
      paperListRetentionDays: 30,
      paperListSweepIntervalMs: 3_600_000,
      // The providers' default call limits summed (16 + 8 + 8 + 4).
      researchLaneConcurrency: 36,
      flow: { models: DEFAULT_MODELS, shareTtlSeconds: 7 * 24 * 3600, webhook: { backoffMs: [5_000, 30_000, 120_000, 600_000], allowPrivateAddresses: false } },
    });
    expect(Object.isFrozen(settings.providerEnv)).toBe(true);
  });

  it('reads the service, the flow, the lanes and the research lane from one environment', () => {
    const settings = researchSettingsFromEnv({
      OPENPAW_RESEARCH_PAPER_SEARCH_CONCURRENCY: '2',
      OPENPAW_LLM_CONCURRENCY: 'openai=2,anthropic=1',
      OPENPAW_LANES: 'research',
      OPENPAW_LANE_CONCURRENCY: 'research=5',
      OPENPAW_RESEARCH_WEBHOOK_BACKOFF_MS: '200,400',
    });
    expect(settings).toMatchObject({
      paperSearchConcurrency: 2,
      researchLaneConcurrency: 2 + 1 + 8 + 4,
      messaging: { lanes: ['research'], laneConcurrency: { research: 5 } },
      flow: { webhook: { backoffMs: [200, 400], allowPrivateAddresses: false } },
    });
  });

  it('posts webhooks to public addresses only, whatever the environment says (no variable turns the SSRF guard off; issue 26)', () => {
    // The variable that used to allow private webhook URLs: only the test entrypoint (testing/private-webhooks-main.ts) may.
    expect(researchSettingsFromEnv({ OPENPAW_RESEARCH_WEBHOOK_ALLOW_PRIVATE: '1' }).flow.webhook.allowPrivateAddresses).toBe(false);
  });

  it('names the invalid variable, the service\'s and the flow\'s alike', () => {
    expect(() => researchSettingsFromEnv({ OPENPAW_RESEARCH_SCORE_BATCH_SIZE: '0', OPENPAW_RESEARCH_POOL_SIZE: 'four' })).toThrow(
      /invalid research configuration: OPENPAW_RESEARCH_POOL_SIZE: .*; OPENPAW_RESEARCH_SCORE_BATCH_SIZE: /,
    );
    expect(() => researchSettingsFromEnv({ OPENPAW_RESEARCH_MODELS: '{"openai":"gpt"}' })).toThrow(/invalid research flow configuration: OPENPAW_RESEARCH_MODELS\.openai: provider\/model/);
    expect(() => researchSettingsFromEnv({ OPENPAW_LANE_CONCURRENCY: 'research' })).toThrow(/OPENPAW_LANE_CONCURRENCY: "research"/);
    // A retention of no days would sweep the lists of a run that just ended (its export still reads them).
    expect(() => researchSettingsFromEnv({ OPENPAW_RESEARCH_PAPER_LIST_RETENTION_DAYS: '0', OPENPAW_RESEARCH_PAPER_LIST_SWEEP_INTERVAL_MS: '5' })).toThrow(
      /OPENPAW_RESEARCH_PAPER_LIST_RETENTION_DAYS: .*; OPENPAW_RESEARCH_PAPER_LIST_SWEEP_INTERVAL_MS: /,
    );
    expect(researchSettingsFromEnv({ OPENPAW_RESEARCH_PAPER_LIST_RETENTION_DAYS: '7' }).paperListRetentionDays).toBe(7);
    // A scholarly search claim: bounded, and shorter than a source's deadline (the waiter fetches after it).
    expect(researchSettingsFromEnv({ OPENPAW_RESEARCH_SEARCH_CLAIM_MS: '2500' }).searchClaimMs).toBe(2_500);
    expect(() => researchSettingsFromEnv({ OPENPAW_RESEARCH_SEARCH_CLAIM_MS: 'soon' })).toThrow(/invalid research configuration: OPENPAW_RESEARCH_SEARCH_CLAIM_MS: /);
    expect(() => researchSettingsFromEnv({ OPENPAW_RESEARCH_SEARCH_CLAIM_MS: '50' })).toThrow(/OPENPAW_RESEARCH_SEARCH_CLAIM_MS: .*100/);
    expect(() => researchSettingsFromEnv({ OPENPAW_RESEARCH_SEARCH_CLAIM_MS: '30000', OPENPAW_RESEARCH_SOURCE_DEADLINE_MS: '20000' })).toThrow(
      /OPENPAW_RESEARCH_SEARCH_CLAIM_MS: must be less than OPENPAW_RESEARCH_SOURCE_DEADLINE_MS \(20000\)/,
    );
  });
});
