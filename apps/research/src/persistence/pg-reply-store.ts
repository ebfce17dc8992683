import type { DataSource } from 'typeorm';
import type { ReplyStore, ResearchReply } from '../ports.js';
import { replySubject, researchReplySchema } from './research-reply-schema.js';

/** `ReplyStore` over PostgreSQL (schema `research`, table `paper_search_replies`). */
export class PgReplyStore implements ReplyStore {
  constructor(private readonly dataSource: DataSource) {}

  async find(commandId: string): Promise<ResearchReply | undefined> {
    const rows = await this.dataSource.query<{ reply: unknown }[]>(`select reply from paper_search_replies where command_id = $1`, [commandId]);
    const row = rows[0];
    return row === undefined ? undefined : researchReplySchema.parse(row.reply);
  }

  async keep(commandId: string, reply: ResearchReply): Promise<ResearchReply> {
    // First writer wins: a concurrent delivery of the same command publishes the reply kept here.
    await this.dataSource.query(`insert into paper_search_replies (command_id, subject, reply) values ($1, $2, $3) on conflict (command_id) do nothing`, [
      commandId,
      replySubject(reply),
      JSON.stringify(researchReplySchema.parse(reply)),
    ]);
    const kept = await this.find(commandId);
    if (kept === undefined) throw new Error(`reply of command ${commandId} was not kept`);
    return kept;
  }
}
