import { DocumentIndexed, RetrievalHit, RetrievalMiss } from '@openpaw/contracts';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import type { RetrievalReply, RetrievalReplyStore } from '../ports.js';

const storedReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('RetrievalHit'), id: z.string(), data: RetrievalHit.schema }),
  z.object({ type: z.literal('RetrievalMiss'), id: z.string(), data: RetrievalMiss.schema }),
  z.object({ type: z.literal('DocumentIndexed'), id: z.string(), data: DocumentIndexed.schema }),
]);

/** `RetrievalReplyStore` over PostgreSQL (schema `retrieval`, table `command_replies`). */
export class PgRetrievalReplyStore implements RetrievalReplyStore {
  constructor(private readonly dataSource: DataSource) {}

  async find(commandId: string): Promise<RetrievalReply | undefined> {
    const rows = await this.dataSource.query<{ reply: unknown }[]>(`select reply from "retrieval"."command_replies" where command_id = $1`, [commandId]);
    const row = rows[0];
    return row === undefined ? undefined : storedReplySchema.parse(row.reply);
  }

  async save(commandId: string, reply: RetrievalReply): Promise<RetrievalReply> {
    // Validated before it is kept: a reply that could never be published must not be stored for ever.
    const valid = storedReplySchema.parse(reply);
    await this.dataSource.query(
      `insert into "retrieval"."command_replies" (command_id, reply_type, reply) values ($1, $2, $3) on conflict (command_id) do nothing`,
      [commandId, valid.type, JSON.stringify(valid)],
    );
    const kept = await this.find(commandId);
    if (kept === undefined) throw new Error(`reply to ${commandId} vanished after it was stored`);
    return kept;
  }
}
