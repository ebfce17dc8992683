import { deterministicUuid, SolutionFailed } from '@openpaw/contracts';
import { openDatabase } from '@openpaw/persistence';
import { freshDatabase } from '@openpaw/testing';
import { PgSolveAttemptStore } from '../pg-solve-attempt.store.js';
import { CreateSolutionAttempts1764000000000 } from './1764000000000-create-solution-attempts.js';
import { KeepReplyBySubject1764400000000 } from './1764400000000-keep-reply-by-subject.js';
import { solveMigrations } from './index.js';

describe('KeepReplyBySubject1764400000000 (real PostgreSQL)', () => {
  it('carries a done attempt’s reply over: a redelivery still gets it, same id and data; down restores the old form', async () => {
    const url = await freshDatabase('solve_kept_reply');
    const runId = crypto.randomUUID();
    const commandId = crypto.randomUUID();
    const data = { runId, commandId, attempt: 1, errorCode: 'llm_unavailable', retryable: true, detail: 'every model failed', costUsd: 0 };
    const stored = { kind: 'failed', id: deterministicUuid(commandId, SolutionFailed.subject), data };
    const before = await openDatabase({ url, schema: 'solve', migrations: [CreateSolutionAttempts1764000000000] });
    await before.query(
      `insert into solve.solution_attempts (run_id, attempt, command_id, status, claimed_at, error_code, reply) values ($1, 1, $2, 'done', now(), 'llm_unavailable', $3)`,
      [runId, commandId, JSON.stringify(stored)],
    );
    await before.destroy();

    const after = await openDatabase({ url, schema: 'solve', migrations: solveMigrations });
    try {
      expect(await new PgSolveAttemptStore(after).claim({ runId, attempt: 1 }, commandId, 60_000)).toEqual({
        kind: 'done',
        reply: { message: SolutionFailed, id: stored.id, data },
      });
      // Undo the migrations after it first, then it.
      for (let undo = solveMigrations.length - 1; solveMigrations[undo] !== KeepReplyBySubject1764400000000; undo--) await after.undoLastMigration();
      await after.undoLastMigration();
      const [row] = await after.query<{ reply: unknown }[]>(`select reply from solve.solution_attempts where run_id = $1`, [runId]);
      expect(row?.reply).toEqual(stored);
    } finally {
      await after.destroy();
    }
  });
});
