import { DEFAULT_STREAM_SETTINGS } from '@openpaw/messaging';
import { visualSearchSettingsFromEnv } from './config.js';
import { DEFAULT_REFUTATION_TTL_MS } from './domain/evidence-cache.js';
import { DEFAULT_EVIDENCE_CACHE_TTL_MS, DEFAULT_RUN_MEMORY_TTL_MS } from './memory/kv-keys.js';

describe('visualSearchSettingsFromEnv', () => {
  it('keeps run memory 30 minutes and evidence 24 hours by default, the local NATS on every lane, the environment for the providers', () => {
    const settings = visualSearchSettingsFromEnv({ OPENPAW_VISUAL_WORLD_SEED: '7', OPENPAW_VISUAL_RUN_TTL_MS: ' ' });
    expect(settings).toEqual({
      providerEnv: { OPENPAW_VISUAL_WORLD_SEED: '7', OPENPAW_VISUAL_RUN_TTL_MS: ' ' },
      messaging: { natsUrl: ['nats://127.0.0.1:4222'], streams: { mode: 'create-missing', settings: DEFAULT_STREAM_SETTINGS } },
      runMemoryTtlMs: DEFAULT_RUN_MEMORY_TTL_MS,
      evidenceCacheTtlMs: DEFAULT_EVIDENCE_CACHE_TTL_MS,
      refutationTtlMs: DEFAULT_REFUTATION_TTL_MS,
    });
    expect([DEFAULT_RUN_MEMORY_TTL_MS, DEFAULT_EVIDENCE_CACHE_TTL_MS, DEFAULT_REFUTATION_TTL_MS]).toEqual([30 * 60_000, 24 * 60 * 60_000, 60 * 60_000]);
    expect(Object.isFrozen(settings.providerEnv)).toBe(true);
  });

  it('reads the time-to-live of each bucket, the NATS servers and the lanes this process consumes', () => {
    expect(
      visualSearchSettingsFromEnv({ OPENPAW_VISUAL_RUN_TTL_MS: '60000', OPENPAW_VISUAL_EVIDENCE_TTL_MS: '120000', OPENPAW_VISUAL_REFUTATION_TTL_MS: '30000', OPENPAW_NATS_URL: 'nats://127.0.0.1:4333', OPENPAW_LANES: 'visual', OPENPAW_LANE_CONCURRENCY: 'visual=3' }),
    ).toMatchObject({ runMemoryTtlMs: 60_000, evidenceCacheTtlMs: 120_000, refutationTtlMs: 30_000, messaging: { natsUrl: ['nats://127.0.0.1:4333'], lanes: ['visual'], laneConcurrency: { visual: 3 } } });
  });

  it('names every invalid variable', () => {
    expect(() => visualSearchSettingsFromEnv({ OPENPAW_VISUAL_RUN_TTL_MS: '0', OPENPAW_VISUAL_EVIDENCE_TTL_MS: 'a day' })).toThrow(
      /invalid visual-search configuration: OPENPAW_VISUAL_RUN_TTL_MS: a positive integer \(milliseconds\); OPENPAW_VISUAL_EVIDENCE_TTL_MS: a positive integer \(milliseconds\)/,
    );
    expect(() => visualSearchSettingsFromEnv({ OPENPAW_LANE_CONCURRENCY: 'visual=many' })).toThrow(/OPENPAW_LANE_CONCURRENCY/);
    expect(() => visualSearchSettingsFromEnv({ OPENPAW_VISUAL_EVIDENCE_TTL_MS: '60000', OPENPAW_VISUAL_REFUTATION_TTL_MS: '60000' })).toThrow(/OPENPAW_VISUAL_REFUTATION_TTL_MS: a refutation must live shorter than a confirmation/);
  });
});
