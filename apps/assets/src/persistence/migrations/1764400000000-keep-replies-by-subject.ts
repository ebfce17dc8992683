import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The reply types this table held, and the subject each was published on (FROZEN subjects). */
const SUBJECT_OF_TYPE = {
  ProblemRegistered: 'openpaw.evt.asset.ProblemRegistered.v1',
  AssetVersionCreated: 'openpaw.evt.asset.AssetVersionCreated.v1',
  VideoRendered: 'openpaw.evt.asset.VideoRendered.v1',
  VideoRenderFailed: 'openpaw.evt.asset.VideoRenderFailed.v1',
} as const;

const subjectOfType = `case r->>'type' ${Object.entries(SUBJECT_OF_TYPE).map(([type, subject]) => `when '${type}' then '${subject}'`).join(' ')} end`;
const typeOfSubject = `case r->>'subject' ${Object.entries(SUBJECT_OF_TYPE).map(([type, subject]) => `when '${subject}' then '${type}'`).join(' ')} end`;

/** Rewrites every element `r` of each row's `replies` array, keeping their order. */
const rewriteReplies = (element: string) => `
  update "assets"."command_replies" c set replies = (
    select coalesce(jsonb_agg(${element} order by position), '[]'::jsonb)
    from jsonb_array_elements(c.replies) with ordinality as e(r, position)
  )`;

/**
 * `command_replies` in the shape every service keeps (`@openpaw/messaging`'s `PgKeptReplyStore`): each
 * reply is `{ subject, id, data }` in place of `{ type, id, data }`. Kept rows are carried over, so a
 * command answered before still gets its replies on redelivery.
 */
export class KeepRepliesBySubject1764400000000 implements MigrationInterface {
  name = 'KeepRepliesBySubject1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(rewriteReplies(`jsonb_build_object('subject', ${subjectOfType}, 'id', r->'id', 'data', r->'data')`));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(rewriteReplies(`jsonb_build_object('type', ${typeOfSubject}, 'id', r->'id', 'data', r->'data')`));
  }
}
