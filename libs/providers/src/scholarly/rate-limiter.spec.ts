import { fakeClock } from '../test-support/stub-server.js';
import { RateLimiter } from './rate-limiter.js';

describe('RateLimiter', () => {
  it('spaces request starts by the interval, in arrival order', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(3_000, clock);
    await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()]);
    // The fake clock advances by what was slept, so each waits one interval after the previous start.
    expect(clock.sleeps).toEqual([3_000, 3_000]);
    expect(clock.now() - Date.UTC(2026, 0, 1)).toBe(6_000);
  });

  it('follows an announced rate and a pause', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(100, clock);
    await limiter.acquire();
    limiter.setRate(2, 1_000);
    await limiter.acquire();
    await limiter.pauseFor(5_000);
    await limiter.acquire();
    expect(clock.sleeps).toEqual([500, 5_000]);
    expect(limiter.minIntervalMs).toBe(500);
  });
});
