import { VISUAL_DEGREES_MAX_RUNTIME_MS } from '@openpaw/contracts';
import { DEFAULT_STREAM_SETTINGS, KV_BUCKETS } from '@openpaw/messaging';
import { visualSearchSettingsFromEnv } from './config.js';
import { DEFAULT_REFUTATION_TTL_MS } from './domain/evidence-cache.js';

describe('visualSearchSettingsFromEnv', () => {
  it('believes a refutation an hour by default, the local NATS on every lane, the environment for the providers', () => {
    const settings = visualSearchSettingsFromEnv({ OPENPAW_VISUAL_WORLD_SEED: '7', OPENPAW_VISUAL_REFUTATION_TTL_MS: ' ' });
    expect(settings).toEqual({
      providerEnv: { OPENPAW_VISUAL_WORLD_SEED: '7', OPENPAW_VISUAL_REFUTATION_TTL_MS: ' ' },
      messaging: { natsUrl: ['nats://127.0.0.1:4222'], streams: { mode: 'create-missing', settings: DEFAULT_STREAM_SETTINGS } },
      refutationTtlMs: DEFAULT_REFUTATION_TTL_MS,
      thumbnailRetentionMs: 7 * 24 * 60 * 60_000,
    });
    expect(DEFAULT_REFUTATION_TTL_MS).toBe(60 * 60_000);
    // The buckets' TTLs belong to provisioning (the platform's KV catalog), not to this service.
    expect([KV_BUCKETS.visualRunMemory.ttlMs, KV_BUCKETS.visualEvidenceCache.ttlMs]).toEqual([30 * 60_000, 24 * 60 * 60_000]);
    // A run's memory outlives the longest run a request may ask for: no key expires while its run works.
    expect(KV_BUCKETS.visualRunMemory.ttlMs).toBeGreaterThanOrEqual(VISUAL_DEGREES_MAX_RUNTIME_MS);
    expect(Object.isFrozen(settings.providerEnv)).toBe(true);
  });

  it('fetches image hosts on public addresses only, whatever the environment says (no variable turns the SSRF guard off; issue 26)', () => {
    // The variable that used to allow loopback image hosts: only the test entrypoint (testing/loopback-main.ts) may.
    expect(visualSearchSettingsFromEnv({ OPENPAW_VISUAL_ALLOW_LOOPBACK_FETCH: '1' }).allowLoopbackImageHosts).toBeUndefined();
  });

  it('reads the refutation lifetime, the NATS servers and the lanes this process consumes', () => {
    expect(
      visualSearchSettingsFromEnv({ OPENPAW_VISUAL_REFUTATION_TTL_MS: '30000', OPENPAW_NATS_URL: 'nats://127.0.0.1:4333', OPENPAW_LANES: 'visual', OPENPAW_LANE_CONCURRENCY: 'visual=3' }),
    ).toMatchObject({ refutationTtlMs: 30_000, messaging: { natsUrl: ['nats://127.0.0.1:4333'], lanes: ['visual'], laneConcurrency: { visual: 3 } } });
  });

  it('names every invalid variable', () => {
    expect(() => visualSearchSettingsFromEnv({ OPENPAW_VISUAL_REFUTATION_TTL_MS: 'an hour' })).toThrow(
      /invalid visual-search configuration: OPENPAW_VISUAL_REFUTATION_TTL_MS: a positive integer \(milliseconds\)/,
    );
    expect(() => visualSearchSettingsFromEnv({ OPENPAW_LANE_CONCURRENCY: 'visual=many' })).toThrow(/OPENPAW_LANE_CONCURRENCY/);
    expect(() => visualSearchSettingsFromEnv({ OPENPAW_VISUAL_REFUTATION_TTL_MS: String(KV_BUCKETS.visualEvidenceCache.ttlMs) })).toThrow(
      /OPENPAW_VISUAL_REFUTATION_TTL_MS: a refutation must live shorter than a confirmation/,
    );
    expect(() => visualSearchSettingsFromEnv({ OPENPAW_VISUAL_THUMBNAIL_RETENTION_MS: String(KV_BUCKETS.visualEvidenceCache.ttlMs - 1) })).toThrow(
      /OPENPAW_VISUAL_THUMBNAIL_RETENTION_MS: thumbnails must be kept at least as long as the cached evidence/,
    );
    expect(visualSearchSettingsFromEnv({ OPENPAW_VISUAL_THUMBNAIL_RETENTION_MS: String(KV_BUCKETS.visualEvidenceCache.ttlMs) }).thumbnailRetentionMs).toBe(KV_BUCKETS.visualEvidenceCache.ttlMs);
  });
});
