import { definitionForSubject } from '@openpaw/contracts';
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import type { Reply, ReplyStore } from '../ports.js';

interface StoredReply {
  readonly subject: string;
  readonly data: unknown;
}

function restore(stored: readonly StoredReply[]): Reply[] {
  return stored.map((r) => {
    const message = definitionForSubject(r.subject);
    if (message === undefined) throw new Error(`stored reply of unknown subject ${r.subject}`);
    return { message, data: (message.schema as z.ZodType).parse(r.data) };
  });
}

/**
 * `ReplyStore` over PostgreSQL (table `command_replies`): the first answer to a command wins and is
 * kept; deliveries of the same command in this process while it is being answered share one answer.
 */
export class PgReplyStore implements ReplyStore {
  private readonly inFlight = new Map<string, Promise<readonly Reply[]>>();

  constructor(private readonly dataSource: DataSource) {}

  async once(commandId: string, work: () => Promise<readonly Reply[]>): Promise<readonly Reply[]> {
    const stored = await this.find(commandId);
    if (stored !== undefined) return stored;
    const running = this.inFlight.get(commandId);
    if (running !== undefined) return running;
    const answering = (async () => this.save(commandId, await work()))();
    this.inFlight.set(commandId, answering);
    try {
      return await answering;
    } finally {
      this.inFlight.delete(commandId);
    }
  }

  private async find(commandId: string): Promise<Reply[] | undefined> {
    const rows = await this.dataSource.query<{ replies: StoredReply[] }[]>(`select replies from command_replies where command_id = $1`, [commandId]);
    return rows[0] === undefined ? undefined : restore(rows[0].replies);
  }

  private async save(commandId: string, replies: readonly Reply[]): Promise<readonly Reply[]> {
    const stored: StoredReply[] = replies.map((r): StoredReply => ({ subject: r.message.subject, data: r.data as unknown }));
    const inserted = await this.dataSource.query<unknown[]>(
      `insert into command_replies (command_id, subject, replies) values ($1, $2, $3::jsonb) on conflict (command_id) do nothing returning command_id`,
      [commandId, stored[0]?.subject ?? '', JSON.stringify(stored)],
    );
    if (inserted.length > 0) return replies;
    // Another instance answered first: its answer is the one.
    return (await this.find(commandId)) ?? replies;
  }
}
