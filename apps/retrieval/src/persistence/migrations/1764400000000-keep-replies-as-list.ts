import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The reply types this table held, and the subject each was published on (FROZEN subjects). */
const SUBJECT_OF_TYPE = {
  RetrievalHit: 'openpaw.evt.retrieval.RetrievalHit.v2',
  RetrievalMiss: 'openpaw.evt.retrieval.RetrievalMiss.v2',
  DocumentIndexed: 'openpaw.evt.retrieval.DocumentIndexed.v1',
} as const;

const subjectOfType = `case reply_type ${Object.entries(SUBJECT_OF_TYPE).map(([type, subject]) => `when '${type}' then '${subject}'`).join(' ')} end`;
const typeOfSubject = `case replies->0->>'subject' ${Object.entries(SUBJECT_OF_TYPE).map(([type, subject]) => `when '${subject}' then '${type}'`).join(' ')} end`;

/**
 * `command_replies` in the shape every service keeps (`@openpaw/messaging`'s `PgKeptReplyStore`):
 * `replies` = `[{ subject, id, data }]` in place of `reply_type` + `reply` (`{ type, id, data }`).
 * Kept rows are carried over, so a command answered before still gets its reply on redelivery.
 */
export class KeepRepliesAsList1764400000000 implements MigrationInterface {
  name = 'KeepRepliesAsList1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "retrieval"."command_replies" add column replies jsonb`);
    await queryRunner.query(
      `update "retrieval"."command_replies" set replies = jsonb_build_array(jsonb_build_object('subject', ${subjectOfType}, 'id', reply->'id', 'data', reply->'data'))`,
    );
    await queryRunner.query(`alter table "retrieval"."command_replies" alter column replies set not null, drop column reply_type, drop column reply`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "retrieval"."command_replies" add column reply_type text, add column reply jsonb`);
    await queryRunner.query(
      `update "retrieval"."command_replies" set reply_type = ${typeOfSubject}, reply = jsonb_build_object('type', ${typeOfSubject}, 'id', replies->0->'id', 'data', replies->0->'data')`,
    );
    await queryRunner.query(`
      alter table "retrieval"."command_replies"
        alter column reply_type set not null,
        alter column reply set not null,
        add check (reply_type in ('RetrievalHit', 'RetrievalMiss', 'DocumentIndexed')),
        drop column replies`);
  }
}
