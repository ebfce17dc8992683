import type { MessageData, RunStateChanged } from '@openpaw/contracts';
import type { DataSource, Repository } from 'typeorm';
import { GATEWAY_SCHEMA, RunProjectionEntity } from './run-projection.entity.js';

export type RunStateChangedData = MessageData<typeof RunStateChanged>;

/** A run as the gateway knows it. */
export interface RunProjection {
  readonly runId: string;
  readonly workflowType: string;
  readonly userId: string;
  readonly state: string;
  readonly terminal: boolean;
  readonly attemptNo: number;
  readonly version: number;
  readonly parentRunId: string | null;
  readonly view: Record<string, unknown>;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface RunListQuery {
  readonly type?: string;
  readonly state?: string;
  readonly limit: number;
  readonly after?: RunCursor;
}

/** Keyset position: the last row of the previous page. */
export interface RunCursor {
  readonly createdAt: Date;
  readonly runId: string;
}

export interface RunPage {
  readonly items: readonly RunProjection[];
  readonly next?: RunCursor;
}

function toProjection(entity: RunProjectionEntity): RunProjection {
  return {
    runId: entity.runId,
    workflowType: entity.workflowType,
    userId: entity.userId,
    state: entity.state,
    terminal: entity.terminal,
    attemptNo: entity.attemptNo,
    version: entity.version,
    parentRunId: entity.parentRunId,
    view: entity.view,
    createdAt: entity.createdAt,
    updatedAt: entity.updatedAt,
  };
}

/** The projection from a `RunStateChanged`, as it would be stored. */
export function projectionOf(event: RunStateChangedData): RunProjection {
  const at = new Date(event.occurredAt);
  return {
    runId: event.runId,
    workflowType: event.workflowType,
    userId: event.userId,
    state: event.stateAfter,
    terminal: event.terminal,
    attemptNo: event.attemptNo,
    version: event.version,
    parentRunId: event.parentRunId,
    view: event.view,
    createdAt: at,
    updatedAt: at,
  };
}

const TABLE = `"${GATEWAY_SCHEMA}"."run_projection"`;

/** Reads and writes the gateway's `run_projection` table. */
export class RunProjectionStore {
  private readonly repository: Repository<RunProjectionEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.repository = dataSource.getRepository(RunProjectionEntity);
  }

  /**
   * Applies a run event when it is newer than what the row holds (by `version`), so redeliveries
   * and reordering are harmless. `created_at` keeps the earliest time seen. Returns whether the row changed.
   */
  async apply(event: RunStateChangedData): Promise<boolean> {
    const rows: unknown = await this.dataSource.query(
      `insert into ${TABLE} as p
         (run_id, workflow_type, user_id, state, terminal, attempt_no, version, parent_run_id, view, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, date_trunc('milliseconds', $10::timestamptz), $10::timestamptz)
       on conflict (run_id) do update set
         workflow_type = excluded.workflow_type,
         user_id = excluded.user_id,
         state = excluded.state,
         terminal = excluded.terminal,
         attempt_no = excluded.attempt_no,
         version = excluded.version,
         parent_run_id = excluded.parent_run_id,
         view = excluded.view,
         created_at = least(p.created_at, excluded.created_at),
         updated_at = excluded.updated_at
       where p.version < excluded.version
       returning run_id`,
      [
        event.runId,
        event.workflowType,
        event.userId,
        event.stateAfter,
        event.terminal,
        event.attemptNo,
        event.version,
        event.parentRunId,
        JSON.stringify(event.view),
        event.occurredAt,
      ],
    );
    return Array.isArray(rows) && rows.length > 0;
  }

  async find(runId: string): Promise<RunProjection | undefined> {
    const entity = await this.repository.findOneBy({ runId });
    return entity === null ? undefined : toProjection(entity);
  }

  /** The run if it belongs to `userId`; a stranger's run is indistinguishable from a missing one. */
  async findForUser(runId: string, userId: string): Promise<RunProjection | undefined> {
    const entity = await this.repository.findOneBy({ runId, userId });
    return entity === null ? undefined : toProjection(entity);
  }

  /** The user's runs, newest first, `limit` per page, after the cursor. */
  async listForUser(userId: string, query: RunListQuery): Promise<RunPage> {
    const builder = this.repository
      .createQueryBuilder('p')
      .where('p.user_id = :userId', { userId })
      .orderBy('p.created_at', 'DESC')
      .addOrderBy('p.run_id', 'DESC')
      .limit(query.limit + 1);
    if (query.type !== undefined) builder.andWhere('p.workflow_type = :type', { type: query.type });
    if (query.state !== undefined) builder.andWhere('p.state = :state', { state: query.state });
    if (query.after !== undefined) {
      builder.andWhere('(p.created_at, p.run_id) < (:afterCreatedAt, :afterRunId)', {
        afterCreatedAt: query.after.createdAt,
        afterRunId: query.after.runId,
      });
    }
    const entities = await builder.getMany();
    const items = entities.slice(0, query.limit).map(toProjection);
    const last = items.at(-1);
    return entities.length > query.limit && last !== undefined
      ? { items, next: { createdAt: last.createdAt, runId: last.runId } }
      : { items };
  }
}
