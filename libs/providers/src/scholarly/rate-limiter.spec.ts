import { type Clock, systemClock } from '../shared/clock.js';
import { fakeClock } from '../test-support/stub-server.js';
import { RateLimiter, type SharedStartSlots } from './rate-limiter.js';

/** A clock whose wall reading is set by the test (`setWall`) while its monotonic reading moves only by what was slept. */
function clockWithMovableWall(): Clock & { sleeps: number[]; setWall(ms: number): void; elapsed(): number } {
  let wall = Date.UTC(2026, 0, 1);
  let monotonic = 1_000;
  const sleeps: number[] = [];
  return {
    now: () => wall,
    monotonicNow: () => monotonic,
    sleep: (ms) => {
      sleeps.push(ms);
      monotonic += ms;
      wall += ms;
      return Promise.resolve();
    },
    sleeps,
    setWall: (ms) => void (wall = ms),
    elapsed: () => monotonic - 1_000,
  };
}

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

  it('keeps its spacing when the wall clock jumps: forward (no burst) and back (no stall)', async () => {
    const clock = clockWithMovableWall();
    const limiter = new RateLimiter(3_000, clock);
    await limiter.acquire();
    clock.setWall(clock.now() + 3_600_000); // NTP (or a person) moves the wall clock an hour ahead
    await limiter.acquire();
    clock.setWall(clock.now() - 7_200_000); // ... then two hours back
    await limiter.acquire();
    await limiter.pauseFor(2_000);
    clock.setWall(clock.now() + 86_400_000);
    await limiter.acquire();
    expect(clock.sleeps).toEqual([3_000, 3_000, 3_000]);
    expect(clock.elapsed()).toBe(9_000);
  });

  it('spaces real starts by the monotonic clock even when Date.now jumps an hour ahead between them', async () => {
    const limiter = new RateLimiter(150, systemClock);
    await limiter.acquire();
    const started = performance.now();
    const realNow = Date.now;
    Date.now = () => realNow.call(Date) + 3_600_000;
    try {
      await limiter.acquire();
    } finally {
      Date.now = realNow;
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('asks shared slots in durations from now, never a clock reading, and waits what they answer', async () => {
    const clock = clockWithMovableWall();
    const asked: [string, number, number][] = [];
    // Another replica holds the next 2 s of this source.
    const slots: SharedStartSlots = { reserve: (key, notBeforeInMs, intervalMs) => Promise.resolve(void asked.push([key, notBeforeInMs, intervalMs])).then(() => (asked.length === 1 ? 2_000 : notBeforeInMs)) };
    const limiter = new RateLimiter(3_000, clock, { slots, key: 'arxiv' });
    await limiter.acquire();
    clock.setWall(0);
    await limiter.acquire();
    await limiter.pauseFor(10_000);
    expect(asked).toEqual([
      ['arxiv', 0, 3_000],
      ['arxiv', 3_000, 3_000],
      ['arxiv', 10_000, 0],
    ]);
    expect(clock.sleeps).toEqual([2_000, 3_000]);
  });
});
