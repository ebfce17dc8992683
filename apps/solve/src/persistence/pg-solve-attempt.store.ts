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
  /** `claimed_at` as text: exact to the microsecond, so it matches the row again in `release`. */
  readonly lease: string;
}

interface ExistingRow extends Omit<ClaimRow, 'lease'> {
  readonly reply: unknown;
  readonly retry_in_ms: number | string | null;
}

/** `SolveAttemptStore` over PostgreSQL (schema `solve`, table `solution_attempts`). */
export class PgSolveAttemptStore implements SolveAttemptStore {
  constructor(private readonly dataSource: DataSource) {}

  async claim(key: AttemptKey, commandId: string, leaseMs: number): Promise<AttemptClaim> {
    // One statement: insert, or take over a claim whose lease ran out; a done attempt is never touched.
    const claimed = await this.dataSource.query<ClaimRow[]>(
      `insert into solution_attempts as a (run_id, attempt, command_id, status, claimed_at)
       values ($1, $2, $3, 'in_progress', now())
       on conflict (run_id, attempt) do update
         set claimed_at = now(), command_id = excluded.command_id, updated_at = now()
         where a.status <> 'done' and a.claimed_at <= now() - make_interval(secs => $4::double precision / 1000)
       returning a.status, a.answer, a.claimed_at::text as lease`,
      [key.runId, key.attempt, commandId, leaseMs],
    );
    const row = claimed[0];
    if (row !== undefined) {
      return { kind: 'claimed', answer: row.answer === null ? undefined : storedAnswerSchema.parse(row.answer), lease: row.lease };
    }
    const existing = await this.dataSource.query<ExistingRow[]>(
      `select status, answer, reply,
              greatest(0, extract(epoch from (claimed_at + make_interval(secs => $3::double precision / 1000) - now())) * 1000) as retry_in_ms
         from solution_attempts where run_id = $1 and attempt = $2`,
      [key.runId, key.attempt, leaseMs],
    );
    const current = existing[0];
    if (current?.status === 'done') return { kind: 'done', reply: storedReply(current.reply) };
    // Claimed by a live delivery (or inserted by one after this statement's snapshot: look again soon).
    return { kind: 'busy', retryInMs: Math.ceil(Number(current?.retry_in_ms ?? 1_000)) };
  }

  async release(key: AttemptKey, lease: ClaimLease): Promise<void> {
    // A claimed_at older than any lease: the next claim takes it over.
    await this.dataSource.query(
      `update solution_attempts set claimed_at = to_timestamp(0), updated_at = now()
        where run_id = $1 and attempt = $2 and status <> 'done' and claimed_at = $3::timestamptz`,
      [key.runId, key.attempt, lease],
    );
  }

  async saveAnswer(key: AttemptKey, answer: StoredAnswer): Promise<void> {
    await this.dataSource.getRepository(SolutionAttemptEntity).update(
      { runId: key.runId, attempt: key.attempt },
      { status: 'answered', answer: storedAnswerSchema.parse(answer), updatedAt: new Date() },
    );
  }

  async complete(key: AttemptKey, reply: Reply): Promise<void> {
    await this.dataSource.getRepository(SolutionAttemptEntity).update(
      { runId: key.runId, attempt: key.attempt },
      {
        status: 'done',
        reply: keptForm([reply]),
        errorCode: isReplyOf(reply, SolutionFailed) ? reply.data.errorCode : null,
        updatedAt: new Date(),
      },
    );
  }

  async countInvalidOutputs(runId: string, beforeAttempt: number): Promise<number> {
    const rows = await this.dataSource.query<{ n: number }[]>(
      `select count(*)::int as n from solution_attempts where run_id = $1 and attempt < $2 and error_code = 'invalid_output'`,
      [runId, beforeAttempt],
    );
    return rows[0]?.n ?? 0;
  }
}
