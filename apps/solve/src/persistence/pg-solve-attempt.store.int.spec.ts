import { SolutionFailed } from '@openpaw/contracts';
import { replyTo } from '@openpaw/messaging';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import type { DataSource } from 'typeorm';
import { ClaimHeartbeat, realHeartbeatClock } from '../claim/claim-heartbeat.js';
import { SOLVE_SCHEMA } from '../config.js';
import type { AttemptKey } from '../ports.js';
import { solveMigrations } from './migrations/index.js';
import { PgSolveAttemptStore } from './pg-solve-attempt.store.js';
import { SolutionAttemptEntity } from './solution-attempt.entity.js';

const LEASE_MS = 15_000;

function attemptKey(n: number): AttemptKey {
  return { runId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, attempt: 1 };
}

function failedReply(key: AttemptKey, commandId: string) {
  return replyTo(commandId, SolutionFailed, { ...key, commandId, errorCode: 'llm_unavailable', retryable: true, detail: 'every model failed', costUsd: 0 });
}

describe('PgSolveAttemptStore: claim leases (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let store: PgSolveAttemptStore;

  /** As if `seconds` passed for the attempt's lease (PostgreSQL's clock is not ours to move). */
  async function elapse(key: AttemptKey, seconds: number): Promise<void> {
    await dataSource.query(`update solution_attempts set lease_expires_at = lease_expires_at - make_interval(secs => $2) where run_id = $1`, [key.runId, seconds]);
  }

  async function claimed(key: AttemptKey, commandId = 'cmd-1', leaseMs = LEASE_MS) {
    const claim = await store.claim(key, commandId, leaseMs);
    if (claim.kind !== 'claimed') throw new Error(`expected a claim, got ${claim.kind}`);
    return claim;
  }

  beforeAll(async () => {
    dataSource = await openDatabase({ url: await freshDatabase('solve_attempts'), schema: SOLVE_SCHEMA, entities: [SolutionAttemptEntity], migrations: solveMigrations });
    store = new PgSolveAttemptStore(dataSource);
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  it('a released claim is taken by the next delivery at once; before the release it is busy for the lease', async () => {
    const key = attemptKey(1);
    const first = await claimed(key);
    const busy = await store.claim(key, 'cmd-1', LEASE_MS);
    expect(busy).toMatchObject({ kind: 'busy' });
    expect(busy.kind === 'busy' && busy.retryInMs).toBeGreaterThan(LEASE_MS - 5_000);
    expect(busy.kind === 'busy' && busy.retryInMs).toBeLessThanOrEqual(LEASE_MS);

    await store.release(key, first.lease);
    expect(await store.claim(key, 'cmd-1', LEASE_MS)).toMatchObject({ kind: 'claimed' });
    // Given back, the old lease renews nothing.
    expect(await store.renew(key, first.lease, LEASE_MS)).toBe(false);
  });

  it('a release never touches a claim another delivery has taken since', async () => {
    const key = attemptKey(2);
    const first = await claimed(key);
    await elapse(key, 20);
    const second = await claimed(key);

    await store.release(key, first.lease);
    expect(await store.claim(key, 'cmd-1', LEASE_MS)).toMatchObject({ kind: 'busy' });
    await store.release(key, second.lease);
    expect(await store.claim(key, 'cmd-1', LEASE_MS)).toMatchObject({ kind: 'claimed' });
  });

  it('a claim its holder does not renew is claimable once the short lease has passed; a renewed one is not', async () => {
    const dead = attemptKey(3);
    const live = attemptKey(4);
    await claimed(dead);
    const liveClaim = await claimed(live);
    await elapse(dead, 10);
    await elapse(live, 10);
    expect(await store.renew(live, liveClaim.lease, LEASE_MS)).toBe(true);
    expect(await store.claim(dead, 'cmd-2', LEASE_MS)).toMatchObject({ kind: 'busy' });
    await elapse(dead, 10);
    await elapse(live, 10);

    // 20 s after the claims: the dead holder's lease (15 s) is over; the live one renewed at 10 s.
    expect(await store.claim(dead, 'cmd-2', LEASE_MS)).toMatchObject({ kind: 'claimed' });
    const busy = await store.claim(live, 'cmd-2', LEASE_MS);
    expect(busy).toMatchObject({ kind: 'busy' });
    expect(busy.kind === 'busy' && busy.retryInMs).toBeGreaterThan(0);
    expect(busy.kind === 'busy' && busy.retryInMs).toBeLessThanOrEqual(5_000);
  });

  it('once taken over, the old holder can neither renew, nor keep its answer, nor complete; the new holder can', async () => {
    const key = attemptKey(5);
    const old = await claimed(key);
    await elapse(key, 20);
    const taker = await claimed(key, 'cmd-2');

    expect(await store.renew(key, old.lease, LEASE_MS)).toBe(false);
    const answer = { value: { can_solve: true, reason: null, steps: [{ title: 'a', detail: 'b' }], final_answer: 'x = 1' }, provenance: { model: 'm/a', promptVersion: 'v', inputTokens: 1, outputTokens: 1, costUsd: 0, latencyMs: 1 } };
    expect(await store.saveAnswer(key, old.lease, answer)).toBe(false);
    expect(await store.complete(key, old.lease, failedReply(key, 'cmd-1'))).toBe(false);
    const [row] = await dataSource.query<{ status: string; answer: unknown; command_id: string }[]>(`select status, answer, command_id from solution_attempts where run_id = $1`, [key.runId]);
    expect(row).toEqual({ status: 'in_progress', answer: null, command_id: 'cmd-2' });

    expect(await store.renew(key, taker.lease, LEASE_MS)).toBe(true);
    expect(await store.saveAnswer(key, taker.lease, answer)).toBe(true);
    expect(await store.complete(key, taker.lease, failedReply(key, 'cmd-2'))).toBe(true);
    expect(await store.claim(key, 'cmd-1', LEASE_MS)).toMatchObject({ kind: 'done', reply: { data: { commandId: 'cmd-2' } } });
    // Done: nothing renews or completes it again.
    expect(await store.renew(key, taker.lease, LEASE_MS)).toBe(false);
    expect(await store.complete(key, taker.lease, failedReply(key, 'cmd-2'))).toBe(false);
  });

  it('a claim written by the previous version (no token, never renewed) keeps its old lease of 130 s', async () => {
    const key = attemptKey(6);
    await dataSource.query(`insert into solution_attempts (run_id, attempt, command_id, status, claimed_at) values ($1, 1, 'cmd-old', 'in_progress', now())`, [key.runId]);
    const busy = await store.claim(key, 'cmd-1', LEASE_MS);
    expect(busy).toMatchObject({ kind: 'busy' });
    expect(busy.kind === 'busy' && busy.retryInMs).toBeGreaterThan(120_000);
  });

  it('with the live heartbeat on the real store, the claim outlives its lease; without it, another delivery takes over', async () => {
    // Real time, with wide margins: the holder renews every second a lease of six.
    const terms = { leaseMs: 6_000, renewEveryMs: 1_000 };
    const live = attemptKey(7);
    const dead = attemptKey(8);
    const askedAt = realHeartbeatClock.now();
    const liveClaim = await claimed(live, 'cmd-1', terms.leaseMs);
    await claimed(dead, 'cmd-1', terms.leaseMs);
    const heartbeat = new ClaimHeartbeat(() => store.renew(live, liveClaim.lease, terms.leaseMs), terms, realHeartbeatClock, askedAt);
    try {
      await new Promise((resolve) => setTimeout(resolve, terms.leaseMs + 500));
      expect(await store.claim(dead, 'cmd-2', terms.leaseMs)).toMatchObject({ kind: 'claimed' });
      expect(await store.claim(live, 'cmd-2', terms.leaseMs)).toMatchObject({ kind: 'busy' });
      expect(heartbeat.signal.aborted).toBe(false);
    } finally {
      heartbeat.stop();
    }
  });
});
