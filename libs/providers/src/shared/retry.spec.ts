import { backoffDelayMs, defaultRetryPolicy, parseRetryAfterMs, retrying } from './retry.js';

const headers = (values: Record<string, string>) => new Headers(values);

describe('retry helpers', () => {
  it('reads Retry-After as seconds, as an HTTP date, and retry-after-ms first', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs(headers({ 'retry-after': '7' }), now)).toBe(7000);
    expect(parseRetryAfterMs(headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(parseRetryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30_000);
    expect(parseRetryAfterMs(headers({ 'retry-after': '9', 'retry-after-ms': '1200' }), now)).toBe(1200);
    expect(parseRetryAfterMs(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfterMs(headers({}), now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });

  it('backs off exponentially with equal jitter, capped', () => {
    const policy = { ...defaultRetryPolicy, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, policy, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(n, policy, () => 0.999999))).toEqual([100, 200, 400, 800, 1000]);
  });

  it('retries only what the classifier allows, up to the attempt limit', async () => {
    const sleeps: number[] = [];
    let calls = 0;
    const result = await retrying(
      (n) => {
        calls = n;
        return n < 3 ? Promise.reject(new Error('flaky')) : Promise.resolve('ok');
      },
      { policy: defaultRetryPolicy, random: () => 0, sleep: (ms) => Promise.resolve(void sleeps.push(ms)), classify: () => ({ retry: true }) },
    );
    expect([result, calls, sleeps]).toEqual(['ok', 3, [250, 500]]);
    await expect(
      retrying(() => Promise.reject(new Error('final')), { policy: defaultRetryPolicy, random: () => 0, sleep: () => Promise.resolve(), classify: () => ({ retry: false }) }),
    ).rejects.toThrow('final');
  });
});
