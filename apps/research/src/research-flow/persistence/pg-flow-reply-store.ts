import type { DataSource } from 'typeorm';
import type { FlowReply, FlowReplyStore } from '../ports.js';
import { flowReplySchema, flowReplySubject } from './flow-reply-schema.js';

/** `FlowReplyStore` over PostgreSQL (schema `research`, table `research_flow_replies`). */
export class PgFlowReplyStore implements FlowReplyStore {
  constructor(private readonly dataSource: DataSource) {}

  async find(commandId: string): Promise<FlowReply | undefined> {
    const rows = await this.dataSource.query<{ reply: unknown }[]>(`select reply from research_flow_replies where command_id = $1`, [commandId]);
    const row = rows[0];
    return row === undefined ? undefined : flowReplySchema.parse(row.reply);
  }

  async keep(commandId: string, reply: FlowReply): Promise<FlowReply> {
    // First writer wins: a concurrent delivery of the same command publishes the reply kept here.
    const inserted = await this.dataSource.query<unknown[]>(
      `insert into research_flow_replies (command_id, subject, reply) values ($1, $2, $3) on conflict (command_id) do nothing returning 1`,
      [commandId, flowReplySubject(reply), JSON.stringify(flowReplySchema.parse(reply))],
    );
    if (inserted.length > 0) return reply;
    const kept = await this.find(commandId);
    if (kept === undefined) throw new Error(`reply of command ${commandId} was not kept`);
    return kept;
  }
}

/** In memory, for unit specs. */
export class InMemoryFlowReplyStore implements FlowReplyStore {
  readonly replies = new Map<string, FlowReply>();

  find(commandId: string): Promise<FlowReply | undefined> {
    return Promise.resolve(this.replies.get(commandId));
  }

  keep(commandId: string, reply: FlowReply): Promise<FlowReply> {
    if (!this.replies.has(commandId)) this.replies.set(commandId, reply);
    return Promise.resolve(this.replies.get(commandId) as FlowReply);
  }
}
