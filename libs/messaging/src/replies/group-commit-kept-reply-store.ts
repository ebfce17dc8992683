import { messageCounters } from '../message-budget.js';
import { GroupRunner } from './group-commit.js';
import type { KeptReplyStore } from './kept-replies.js';
import { KEPT_REPLIES_TABLE, type SqlRunner } from './pg-kept-reply-store.js';
import { keptForm, restoredReplies, type KeptForm } from './reply-codec.js';
import type { Reply } from './reply.js';

interface KeepRequest {
  readonly commandId: string;
  readonly replies: readonly Reply[];
  readonly kept: KeptForm;
}

/**
 * `KeptReplyStore` over `<schema>.command_replies` for a busy lane: the look-ups of concurrent
 * deliveries go out as one `select … = any(…)`, and their keeps as one multi-row insert, one commit
 * for them all (group commit). Every delivery is still looked up (a re-send outside JetStream's
 * duplicate window arrives as a first delivery) and every answer is kept before it is published; only
 * the round trips are shared. A reply PostgreSQL refuses (class 22/23) fails its own keep only.
 */
export class GroupCommitKeptReplyStore implements KeptReplyStore {
  private readonly table: string;
  private readonly finds: GroupRunner<string, readonly Reply[] | undefined>;
  private readonly keeps: GroupRunner<KeepRequest, readonly Reply[]>;

  constructor(
    private readonly sql: SqlRunner,
    schema: string,
    maxBatch = 256,
  ) {
    this.table = `"${schema}"."${KEPT_REPLIES_TABLE}"`;
    this.finds = new GroupRunner((ids) => this.findAll(ids), maxBatch);
    this.keeps = new GroupRunner((requests) => this.keepAll(requests), maxBatch);
  }

  find(commandId: string): Promise<readonly Reply[] | undefined> {
    return this.finds.submit(commandId);
  }

  keep(commandId: string, replies: readonly Reply[]): Promise<readonly Reply[]> {
    // Validated here, before the batch: a reply that could never be published fails its own keep.
    return this.keeps.submit({ commandId, replies, kept: keptForm(replies) });
  }

  private async findAll(commandIds: readonly string[]): Promise<Array<readonly Reply[] | undefined>> {
    messageCounters.lookups += 1;
    const found = await this.keptOf([...new Set(commandIds)]);
    return commandIds.map((id) => found.get(id));
  }

  private async keptOf(commandIds: readonly string[]): Promise<Map<string, readonly Reply[]>> {
    if (commandIds.length === 0) return new Map();
    const rows = await this.sql.query<Array<{ command_id: string; replies: unknown }>>(
      `select command_id, replies from ${this.table} where command_id = any($1::text[])`,
      [commandIds],
    );
    return new Map(rows.map((row) => [row.command_id, restoredReplies(row.replies)]));
  }

  private async keepAll(requests: readonly KeepRequest[]): Promise<Array<readonly Reply[]>> {
    const inserted = await this.sql.query<Array<{ command_id: string }>>(
      `insert into ${this.table} (command_id, replies)
       select k.command_id, k.replies from unnest($1::text[], $2::jsonb[]) with ordinality as k(command_id, replies, ord)
       order by k.ord
       on conflict (command_id) do nothing returning command_id`,
      [requests.map((r) => r.commandId), requests.map((r) => JSON.stringify(r.kept))],
    );
    messageCounters.commits += 1;
    const ours = new Set(inserted.map((row) => row.command_id));
    // Another delivery answered first (or an earlier request of this very batch): its answer is the one.
    const firstOf = new Map<string, readonly Reply[]>();
    const others: string[] = [];
    for (const request of requests) {
      if (ours.has(request.commandId) && !firstOf.has(request.commandId)) firstOf.set(request.commandId, request.replies);
      else if (!ours.has(request.commandId)) others.push(request.commandId);
    }
    const kept = await this.keptOf([...new Set(others)]);
    return requests.map((request) => {
      const answer = firstOf.get(request.commandId) ?? kept.get(request.commandId);
      if (answer === undefined) throw new Error(`replies of command ${request.commandId} were neither kept nor found`);
      return answer;
    });
  }
}
