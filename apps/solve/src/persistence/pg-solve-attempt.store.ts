import { randomUUID } from 'node:crypto';
import { SolutionFailed, solutionProvenance } from '@openpaw/contracts';
import { isReplyOf, keptForm, type Reply, restoredReplies } from '@openpaw/messaging';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import type { AttemptClaim, AttemptKey, ClaimLease, SolveAttemptStore, StoredAnswer } from '../ports.js';
import { solutionAnswerSchema } from '../solution/prompt.js';
import { SolutionAttemptEntity } from './solution-attempt.entity.js';

/** The attempt's one reply, from its kept form (`@openpaw/messaging`: `[{ subject, id, data }]`). */
function storedReply(kept: unknown): Reply {
  const [reply] = restoredReplies(kept);
  if (reply === undefined) throw new Error('a done attempt has no kept reply');
  return reply;
}
const storedAnswerSchema = z.object({ value: solutionAnswerSchema, provenance: solutionProvenance });

interface ClaimRow {
  readonly status: string;
  readonly answer: unknown;
}

interface ExistingRow extends ClaimRow {
  readonly reply: unknown;
  readonly retry_in_ms: number | string | null;
}

/** Rows of `solution_attempts` that `lease` still holds (its token, the attempt not done). */
const HELD_BY_LEASE = 'run_id = :runId and attempt = :attempt and lease_token = :lease and status <> :done';

/**
 * `SolveAttemptStore` over PostgreSQL (schema `solve`, table `solution_attempts`). Lease times are
 * PostgreSQL's `now()` only, so the holders' clocks never need to agree with each other.
 */
export class PgSolveAttemptStore implements SolveAttemptStore {
  constructor(private readonly dataSource: DataSource) {}

  async claim(key: AttemptKey, commandId: string, leaseMs: number): Promise<AttemptClaim> {
    const lease = randomUUID();
    // One statement: insert, or take over a claim whose lease expired; a done attempt is never touched.
    const claimed = await this.dataSource.query<ClaimRow[]>(
      `insert into solution_attempts as a (run_id, attempt, command_id, status, claimed_at, lease_token, lease_expires_at)
       values ($1, $2, $3, 'in_progress', now(), $5, now() + make_interval(secs => $4::double precision / 1000))
       on conflict (run_id, attempt) do update
         set claimed_at = now(), command_id = excluded.command_id, lease_token = excluded.lease_token,
             lease_expires_at = excluded.lease_expires_at, updated_at = now()
         where a.status <> 'done' and a.lease_expires_at <= now()
       returning a.status, a.answer`,
      [key.runId, key.attempt, commandId, leaseMs, lease],
    );
    const row = claimed[0];
    if (row !== undefined) {
      return { kind: 'claimed', answer: row.answer === null ? undefined : storedAnswerSchema.parse(row.answer), lease };
    }
    const existing = await this.dataSource.query<ExistingRow[]>(
      `select status, answer, reply, greatest(0, extract(epoch from (lease_expires_at - now())) * 1000) as retry_in_ms
         from solution_attempts where run_id = $1 and attempt = $2`,
      [key.runId, key.attempt],
    );
    const current = existing[0];
    if (current?.status === 'done') return { kind: 'done', reply: storedReply(current.reply) };
    // Claimed by a live delivery (or inserted by one after this statement's snapshot: look again soon).
    return { kind: 'busy', retryInMs: Math.ceil(Number(current?.retry_in_ms ?? 1_000)) };
  }

  async renew(key: AttemptKey, lease: ClaimLease, leaseMs: number): Promise<boolean> {
    // Matched by token only: an expired lease nobody took over is still this holder's (a takeover
    // replaces the token in the same statement that checks the expiry), so extending it is safe.
    const result = await this.dataSource
      .createQueryBuilder()
      .update(SolutionAttemptEntity)
      .set({ leaseExpiresAt: () => 'now() + make_interval(secs => :leaseSeconds)', updatedAt: () => 'now()' })
      .where(HELD_BY_LEASE, { ...key, lease, done: 'done', leaseSeconds: leaseMs / 1000 })
      .execute();
    return result.affected === 1;
  }

  async release(key: AttemptKey, lease: ClaimLease): Promise<void> {
    // Expired at once, and no longer anyone's: the next claim takes it over; the holder cannot renew.
    await this.dataSource
      .createQueryBuilder()
      .update(SolutionAttemptEntity)
      .set({ leaseToken: null, leaseExpiresAt: () => 'to_timestamp(0)', updatedAt: () => 'now()' })
      .where(HELD_BY_LEASE, { ...key, lease, done: 'done' })
      .execute();
  }

  async saveAnswer(key: AttemptKey, lease: ClaimLease, answer: StoredAnswer): Promise<boolean> {
    const result = await this.dataSource
      .createQueryBuilder()
      .update(SolutionAttemptEntity)
      .set({ status: 'answered', answer: storedAnswerSchema.parse(answer), updatedAt: () => 'now()' })
      .where(HELD_BY_LEASE, { ...key, lease, done: 'done' })
      .execute();
    return result.affected === 1;
  }

  async complete(key: AttemptKey, lease: ClaimLease, reply: Reply): Promise<boolean> {
    const result = await this.dataSource
      .createQueryBuilder()
      .update(SolutionAttemptEntity)
      .set({
        status: 'done',
        reply: keptForm([reply]),
        errorCode: isReplyOf(reply, SolutionFailed) ? reply.data.errorCode : null,
        updatedAt: () => 'now()',
      })
      .where(HELD_BY_LEASE, { ...key, lease, done: 'done' })
      .execute();
    return result.affected === 1;
  }

  async countInvalidOutputs(runId: string, beforeAttempt: number): Promise<number> {
    const rows = await this.dataSource.query<{ n: number }[]>(
      `select count(*)::int as n from solution_attempts where run_id = $1 and attempt < $2 and error_code = 'invalid_output'`,
      [runId, beforeAttempt],
    );
    return rows[0]?.n ?? 0;
  }
}
