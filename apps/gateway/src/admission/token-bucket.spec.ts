import { admissionLimitsFrom, DEFAULT_ADMISSION_LIMITS, tierOf } from './admission-limits.js';
import { TokenBuckets } from './token-bucket.js';

describe('TokenBuckets (per-user admission rate)', () => {
  it('admits a burst, then one per 1/rate seconds, and says how long until the next', () => {
    const buckets = new TokenBuckets();
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i += 1) expect(buckets.take('alice', 2, 3, t0)).toBe(0);
    expect(buckets.take('alice', 2, 3, t0)).toBe(500);
    expect(buckets.take('alice', 2, 3, t0 + 250)).toBe(250);
    expect(buckets.take('alice', 2, 3, t0 + 500)).toBe(0);
    // Another user has a bucket of their own.
    expect(buckets.take('bob', 2, 3, t0 + 500)).toBe(0);
  });

  it('takes at a time before its last one (concurrent admissions) without draining the bucket', () => {
    const buckets = new TokenBuckets();
    expect(buckets.take('alice', 100, 100, 10_000)).toBe(0);
    // Read 2 s earlier, taken later: no negative refill of 200 tokens.
    for (let i = 0; i < 99; i += 1) expect(buckets.take('alice', 100, 100, 8_000)).toBe(0);
    expect(buckets.take('alice', 100, 100, 8_000)).toBe(10);
    expect(buckets.take('alice', 100, 100, 10_010)).toBe(0);
  });

  it('forgets buckets once they have refilled (they behave as new ones)', () => {
    const buckets = new TokenBuckets();
    buckets.take('alice', 1, 2, 0);
    buckets.prune(() => 1, () => 2, 500);
    expect(buckets.size).toBe(1);
    buckets.prune(() => 1, () => 2, 1_000);
    expect(buckets.size).toBe(0);
  });
});

describe('admission limits', () => {
  it('default per tier, overridable in part by OPENPAW_ADMISSION_JSON', () => {
    expect(admissionLimitsFrom(undefined)).toBe(DEFAULT_ADMISSION_LIMITS);
    const limits = admissionLimitsFrom('{"tiers":{"free":{"ratePerSecond":0.5}},"maxCriticalBacklog":50}');
    expect(limits.tiers.free).toEqual({ ...DEFAULT_ADMISSION_LIMITS.tiers.free, ratePerSecond: 0.5 });
    expect(limits.tiers.pro).toEqual(DEFAULT_ADMISSION_LIMITS.tiers.pro);
    expect(limits.maxCriticalBacklog).toBe(50);
  });

  it('names what is invalid', () => {
    expect(() => admissionLimitsFrom('{"tiers":{"free":{"burst":-1}}}')).toThrow(/OPENPAW_ADMISSION_JSON is invalid[\s\S]*burst/);
    expect(() => admissionLimitsFrom('{nope')).toThrow('OPENPAW_ADMISSION_JSON is not valid JSON');
    expect(() => admissionLimitsFrom('{"tier":{}}')).toThrow(/OPENPAW_ADMISSION_JSON is invalid/);
  });

  it('maps a token without a known tier claim to free', () => {
    expect(tierOf(undefined)).toBe('free');
    expect(tierOf('platinum')).toBe('free');
    expect(tierOf('enterprise')).toBe('enterprise');
  });
});
