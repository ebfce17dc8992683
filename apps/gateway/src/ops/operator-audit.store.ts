import type { DataSource } from 'typeorm';
import { GATEWAY_SCHEMA } from '../projection/run-projection.entity.js';

/**
 * What an operator did: `redrive_one` (target: the dead letter), `redrive_by_filter` (target: the filter)
 * or `visual_takedown` (target: the person taken down from visual degrees).
 */
export type OperatorAction = 'redrive_one' | 'redrive_by_filter' | 'visual_takedown';

export interface OperatorAuditEntry {
  readonly id: number;
  readonly actor: string;
  readonly action: OperatorAction;
  readonly target: Record<string, unknown>;
  /** How many messages the action moved (a takedown: the cache entries and pictures it removed). */
  readonly affected: number;
  readonly occurredAt: Date;
}

interface AuditRow {
  id: string; // bigserial comes back as text
  actor: string;
  action: OperatorAction;
  target: Record<string, unknown>;
  affected: number;
  occurred_at: Date;
}

const TABLE = `"${GATEWAY_SCHEMA}"."operator_audit"`;

/** The gateway's `operator_audit` table: an append-only log of operator actions, newest first when read. */
export class OperatorAuditStore {
  constructor(private readonly dataSource: DataSource) {}

  async record(entry: { actor: string; action: OperatorAction; target: Record<string, unknown>; affected: number }): Promise<void> {
    await this.dataSource.query(`insert into ${TABLE} (actor, action, target, affected) values ($1, $2, $3::jsonb, $4)`, [
      entry.actor,
      entry.action,
      JSON.stringify(entry.target),
      entry.affected,
    ]);
  }

  async newest(limit: number): Promise<OperatorAuditEntry[]> {
    const rows: AuditRow[] = await this.dataSource.query(`select id, actor, action, target, affected, occurred_at from ${TABLE} order by occurred_at desc, id desc limit $1`, [limit]);
    return rows.map((row) => ({ id: Number(row.id), actor: row.actor, action: row.action, target: row.target, affected: row.affected, occurredAt: row.occurred_at }));
  }
}
