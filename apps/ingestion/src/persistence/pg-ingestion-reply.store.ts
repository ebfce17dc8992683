import { MediaNormalized, MediaRejected } from '@openpaw/contracts';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import type { IngestionReply, IngestionReplyStore } from '../ports.js';

const storedReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('MediaNormalized'), id: z.string(), data: MediaNormalized.schema }),
  z.object({ type: z.literal('MediaRejected'), id: z.string(), data: MediaRejected.schema }),
]);

/** `IngestionReplyStore` over PostgreSQL (schema `ingestion`, table `command_replies`). */
export class PgIngestionReplyStore implements IngestionReplyStore {
  constructor(private readonly dataSource: DataSource) {}

  async find(commandId: string): Promise<IngestionReply | undefined> {
    const rows = await this.dataSource.query<{ reply: unknown }[]>(`select reply from "ingestion"."command_replies" where command_id = $1`, [commandId]);
    const row = rows[0];
    return row === undefined ? undefined : storedReplySchema.parse(row.reply);
  }

  async save(commandId: string, reply: IngestionReply): Promise<IngestionReply> {
    // Validated before it is kept: a reply that could never be published must not be stored for ever.
    const valid = storedReplySchema.parse(reply);
    await this.dataSource.query(
      `insert into "ingestion"."command_replies" (command_id, reply_type, reply) values ($1, $2, $3) on conflict (command_id) do nothing`,
      [commandId, valid.type, JSON.stringify(valid)],
    );
    const kept = await this.find(commandId);
    if (kept === undefined) throw new Error(`reply to ${commandId} vanished after it was stored`);
    return kept;
  }
}
