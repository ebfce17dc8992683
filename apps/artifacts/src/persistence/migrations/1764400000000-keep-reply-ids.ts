import { deterministicUuid } from '@openpaw/contracts';
import type { MigrationInterface, QueryRunner } from 'typeorm';

interface Row {
  readonly command_id: string;
  readonly replies: readonly { readonly subject: string; readonly data: unknown; readonly id?: string }[];
}

/**
 * `command_replies` in the shape every service keeps (`@openpaw/messaging`'s `PgKeptReplyStore`):
 * each reply is `{ subject, id, data }`, its id the one it was published with (derived from the
 * command and the subject); the `subject` column (the first reply's) goes. Kept rows are carried
 * over, so a command answered before still gets its replies, with the same ids, on redelivery.
 */
export class KeepReplyIds1764400000000 implements MigrationInterface {
  name = 'KeepReplyIds1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const rows = (await queryRunner.query(`select command_id, replies from "artifacts"."command_replies"`)) as Row[];
    for (const row of rows) {
      const replies = row.replies.map((r) => ({ subject: r.subject, id: deterministicUuid(row.command_id, r.subject), data: r.data }));
      await queryRunner.query(`update "artifacts"."command_replies" set replies = $2::jsonb where command_id = $1`, [row.command_id, JSON.stringify(replies)]);
    }
    await queryRunner.query(`alter table "artifacts"."command_replies" drop column subject`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`alter table "artifacts"."command_replies" add column subject text not null default ''`);
    await queryRunner.query(`
      update "artifacts"."command_replies" c set
        subject = coalesce(c.replies->0->>'subject', ''),
        replies = (select coalesce(jsonb_agg(r - 'id' order by position), '[]'::jsonb) from jsonb_array_elements(c.replies) with ordinality as e(r, position))`);
    await queryRunner.query(`alter table "artifacts"."command_replies" alter column subject drop default`);
  }
}
