import { ManualHeartbeatClock } from '../testing/manual-heartbeat-clock.js';
import { ClaimHeartbeat, ClaimLostError } from './claim-heartbeat.js';

const TERMS = { leaseMs: 15_000, renewEveryMs: 5_000 };
/** The heartbeat gives up this long before its lease could expire (a tenth of the lease, at most 1 s). */
const MARGIN_MS = 1_000;

/** A store's renewal, answered as the test says (true: still held; false: taken over; an Error: PostgreSQL away). */
function scriptedRenew(answer: () => boolean | Error | Promise<boolean>): (() => Promise<boolean>) & { calls: number } {
  const renew = Object.assign(
    (): Promise<boolean> => {
      renew.calls++;
      const a = answer();
      return a instanceof Error ? Promise.reject(a) : typeof a === 'boolean' ? Promise.resolve(a) : a;
    },
    { calls: 0 },
  );
  return renew;
}

function start(renew: () => Promise<boolean>, clock = new ManualHeartbeatClock(), askedAt = clock.now()) {
  return { clock, heartbeat: new ClaimHeartbeat(renew, TERMS, clock, askedAt) };
}

describe('ClaimHeartbeat', () => {
  it('renews every renewEveryMs while the handler runs, and keeps the claim for as long as renewals succeed', async () => {
    const renew = scriptedRenew(() => true);
    const { clock, heartbeat } = start(renew);
    await clock.advance(4_999);
    expect(renew.calls).toBe(0);
    await clock.advance(1);
    expect(renew.calls).toBe(1);
    await clock.advance(55_000);
    expect(renew.calls).toBe(12);
    expect(heartbeat.signal.aborted).toBe(false);
    expect(() => heartbeat.assertHeld()).not.toThrow();
  });

  it('stops renewing when the handler ends: no timers left, the claim never abandoned', async () => {
    const renew = scriptedRenew(() => true);
    const { clock, heartbeat } = start(renew);
    await clock.advance(5_000);
    heartbeat.stop();
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(60_000);
    expect(renew.calls).toBe(1);
    expect(heartbeat.signal.aborted).toBe(false);
  });

  it('abandons at once when a renewal says the claim is no longer its own (taken over or given back)', async () => {
    const renew = scriptedRenew(() => false);
    const { clock, heartbeat } = start(renew);
    await clock.advance(5_000);
    expect(heartbeat.signal.aborted).toBe(true);
    expect(heartbeat.signal.reason).toBeInstanceOf(ClaimLostError);
    expect(() => heartbeat.assertHeld()).toThrow(/no longer this delivery's/);
    await clock.advance(60_000);
    expect(renew.calls).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps trying while renewals fail (PostgreSQL away), and abandons before the lease could expire', async () => {
    const renew = scriptedRenew(() => new Error('connection refused'));
    const { clock, heartbeat } = start(renew);
    await clock.advance(TERMS.leaseMs - MARGIN_MS - 1);
    expect(renew.calls).toBe(2);
    expect(heartbeat.signal.aborted).toBe(false);
    await clock.advance(1);
    expect(heartbeat.signal.aborted).toBe(true);
    expect(() => heartbeat.assertHeld()).toThrow(/could have expired before a renewal got through/);
    await clock.advance(60_000);
    expect(renew.calls).toBe(2);
  });

  it('a renewal that succeeds after a failed one extends the lease from when it was asked', async () => {
    let beat = 0;
    const renew = scriptedRenew(() => (++beat === 1 ? new Error('connection reset') : true));
    const { clock, heartbeat } = start(renew);
    await clock.advance(10_000); // the failed beat at 5 s, the good one at 10 s: held until 25 s
    await clock.advance(TERMS.leaseMs - MARGIN_MS - 1);
    expect(heartbeat.signal.aborted).toBe(false);
  });

  it('abandons when a renewal hangs past the lease, and ignores its late success', async () => {
    let answerLate: (held: boolean) => void = () => undefined;
    const renew = scriptedRenew(() => new Promise<boolean>((resolve) => (answerLate = resolve)));
    const { clock, heartbeat } = start(renew);
    await clock.advance(TERMS.leaseMs - MARGIN_MS);
    expect(renew.calls).toBe(1);
    expect(heartbeat.signal.aborted).toBe(true);
    answerLate(true);
    await clock.advance(60_000);
    expect(heartbeat.signal.aborted).toBe(true);
    expect(renew.calls).toBe(1);
  });

  it('counts the lease from when the claim was asked for, not from when its answer arrived', async () => {
    const clock = new ManualHeartbeatClock();
    const askedAt = clock.now();
    await clock.advance(4_000); // a slow claim round trip
    const renew = scriptedRenew(() => new Error('connection refused'));
    const { heartbeat } = start(renew, clock, askedAt);
    await clock.advance(TERMS.leaseMs - MARGIN_MS - 4_000);
    expect(heartbeat.signal.aborted).toBe(true);
  });
});
