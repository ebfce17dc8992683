import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The reply kinds `solution_attempts.reply` held, and the subject each was published on (FROZEN subjects). */
const SUBJECT_OF_KIND = {
  generated: 'openpaw.evt.solve.SolutionGenerated.v1',
  failed: 'openpaw.evt.solve.SolutionFailed.v1',
} as const;

const subjectOfKind = `case reply->>'kind' ${Object.entries(SUBJECT_OF_KIND).map(([kind, subject]) => `when '${kind}' then '${subject}'`).join(' ')} end`;
const kindOfSubject = `case reply->0->>'subject' ${Object.entries(SUBJECT_OF_KIND).map(([kind, subject]) => `when '${subject}' then '${kind}'`).join(' ')} end`;

/**
 * A done attempt's reply in the kept form every service uses (`@openpaw/messaging`): `[{ subject, id,
 * data }]` in place of `{ kind, id, data }`. Kept rows are carried over, so a redelivered command of a
 * done attempt still gets its reply.
 */
export class KeepReplyBySubject1764400000000 implements MigrationInterface {
  name = 'KeepReplyBySubject1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `update "solve"."solution_attempts" set reply = jsonb_build_array(jsonb_build_object('subject', ${subjectOfKind}, 'id', reply->'id', 'data', reply->'data')) where reply is not null`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `update "solve"."solution_attempts" set reply = jsonb_build_object('kind', ${kindOfSubject}, 'id', reply->0->'id', 'data', reply->0->'data') where reply is not null`,
    );
  }
}
