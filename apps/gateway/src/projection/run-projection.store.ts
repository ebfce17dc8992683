import type { MessageData, RunStateChanged } from '@openpaw/contracts';
import type { DataSource, Repository } from 'typeorm';
import { GATEWAY_SCHEMA, RunProjectionEntity } from './run-projection.entity.js';
import { pollUntil } from './poll-until.js';
import { type PreparedSql, preparedSql } from '@openpaw/persistence';

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
  /** When the current attempt started (the first event seen with its attempt number); null on rows from before it was tracked. */
  readonly attemptStartedAt: Date | null;
}

/** A run without its view: what a runs list shows unless asked for views (the view can be megabytes). */
export type RunSummaryProjection = Omit<RunProjection, 'view'>;

/** How long recent runs of a workflow type took, for ETAs. */
export interface RecentDurations {
  /** Median duration in ms; undefined when there is no finished run to learn from. */
  readonly medianMs?: number;
  readonly sampleSize: number;
}

export interface RunListQuery {
  readonly type?: string;
  readonly state?: string;
  readonly limit: number;
  readonly after?: RunCursor;
  /** Created at or after. */
  readonly createdFrom?: Date;
  /** Created before. */
  readonly createdBefore?: Date;
  /** Lower-case hex digits and dashes only (validated by the route). */
  readonly runIdPrefix?: string;
}

/** Keyset position: the last row of the previous page. */
export interface RunCursor {
  readonly createdAt: Date;
  readonly runId: string;
}

export interface RunPage<Run extends RunSummaryProjection = RunProjection> {
  readonly items: readonly Run[];
  readonly next?: RunCursor;
}

function toSummaryProjection(entity: RunProjectionEntity): RunSummaryProjection {
  return {
    runId: entity.runId,
    workflowType: entity.workflowType,
    userId: entity.userId,
    state: entity.state,
    terminal: entity.terminal,
    attemptNo: entity.attemptNo,
    version: entity.version,
    parentRunId: entity.parentRunId,
    createdAt: entity.createdAt,
    updatedAt: entity.updatedAt,
    attemptStartedAt: entity.attemptStartedAt,
  };
}

function toProjection(entity: RunProjectionEntity): RunProjection {
  return { ...toSummaryProjection(entity), view: entity.view };
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
    attemptStartedAt: at,
  };
}

export const RUN_PROJECTION_TABLE = `"${GATEWAY_SCHEMA}"."run_projection"`;
/** The tier each run was admitted under (`AdmissionControl.started`). */
export const RUN_ADMISSIONS_TABLE = `"${GATEWAY_SCHEMA}"."run_admissions"`;
/** Each user's runs in flight per workflow type, kept by triggers on the projection (migration 1764800000000). */
export const RUN_IN_FLIGHT_COUNTS_TABLE = `"${GATEWAY_SCHEMA}"."run_in_flight_counts"`;
const TABLE = RUN_PROJECTION_TABLE;

/** A `run_projection` row as PostgreSQL answers it (pg parses the timestamps and the jsonb). */
export interface RunProjectionRow {
  run_id: string;
  workflow_type: string;
  user_id: string;
  state: string;
  terminal: boolean;
  attempt_no: number;
  version: number;
  parent_run_id: string | null;
  view: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  attempt_started_at: Date | null;
}

/** Every column of `run_projection`, as `RunProjectionRow` has them. */
export const RUN_PROJECTION_COLUMNS = 'run_id, workflow_type, user_id, state, terminal, attempt_no, version, parent_run_id, view, created_at, updated_at, attempt_started_at';
const SELECT_RUN = `select ${RUN_PROJECTION_COLUMNS} from ${TABLE} where run_id = $1`;
const SELECT_USERS_RUN = `select ${RUN_PROJECTION_COLUMNS} from ${TABLE} where run_id = $1 and user_id = $2`;

export function rowToProjection(row: RunProjectionRow): RunProjection {
  return {
    runId: row.run_id,
    workflowType: row.workflow_type,
    userId: row.user_id,
    state: row.state,
    terminal: row.terminal,
    attemptNo: row.attempt_no,
    version: row.version,
    parentRunId: row.parent_run_id,
    view: row.view,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    attemptStartedAt: row.attempt_started_at,
  };
}

/** Reads and writes the gateway's `run_projection` table. */
export class RunProjectionStore {
  private readonly repository: Repository<RunProjectionEntity>;
  /** Reads of one run by id (every request and event stream makes some) as named statements. */
  private readonly sql: PreparedSql;

  constructor(private readonly dataSource: DataSource) {
    this.repository = dataSource.getRepository(RunProjectionEntity);
    this.sql = preparedSql(dataSource, 'gateway_run_projection');
  }

  /**
   * Median duration of the `sampleSize` most recently finished runs of `workflowType` that ended
   * in `finishedState` (top-level runs only): the workflow's own `duration_ms` where its view has
   * one, else the projection's time from the attempt's first event to its terminal event.
   */
  async recentDurations(workflowType: string, finishedState: string, sampleSize: number): Promise<RecentDurations> {
    const rows = await this.dataSource.query<{ median_ms: number | string | null; sample_size: number }[]>(
      `select percentile_cont(0.5) within group (order by duration_ms) as median_ms, count(*)::int as sample_size
         from (select coalesce(
                        case when jsonb_typeof(view -> 'duration_ms') = 'number' then (view ->> 'duration_ms')::float8 end,
                        extract(epoch from (updated_at - coalesce(attempt_started_at, created_at))) * 1000
                      ) as duration_ms
                 from ${TABLE}
                where workflow_type = $1 and state = $2 and parent_run_id is null
                order by updated_at desc
                limit $3) recent`,
      [workflowType, finishedState, sampleSize],
    );
    const row = rows[0];
    if (row === undefined || row.median_ms === null) return { sampleSize: 0 };
    return { medianMs: Number(row.median_ms), sampleSize: row.sample_size };
  }

  async find(runId: string): Promise<RunProjection | undefined> {
    const [row] = await this.sql.query<RunProjectionRow>(SELECT_RUN, [runId]);
    return row === undefined ? undefined : rowToProjection(row);
  }

  /** The run if it belongs to `userId`; a stranger's run is indistinguishable from a missing one. */
  async findForUser(runId: string, userId: string): Promise<RunProjection | undefined> {
    const [row] = await this.sql.query<RunProjectionRow>(SELECT_USERS_RUN, [runId, userId]);
    return row === undefined ? undefined : rowToProjection(row);
  }

  /** The run once its row satisfies `ready`, waiting at most `graceMs` (see `pollUntil`); else the row as it is then. */
  findWhen(
    runId: string,
    ready: (run: RunProjection) => boolean,
    options: { readonly userId?: string; readonly graceMs: number },
  ): Promise<RunProjection | undefined> {
    const read = (): Promise<RunProjection | undefined> =>
      options.userId === undefined ? this.find(runId) : this.findForUser(runId, options.userId);
    return pollUntil(read, (run) => run !== undefined && ready(run), options.graceMs);
  }

  /** The user's runs, newest first, `limit` per page, after the cursor. */
  listForUser(userId: string, query: RunListQuery): Promise<RunPage> {
    return this.list({ ...query, userId });
  }

  /** Runs newest first, `limit` per page, after the cursor: one user's, or with no `userId` everyone's (an admin's view). */
  async list(query: RunListQuery & { readonly userId?: string }): Promise<RunPage> {
    return pageOf(await this.listQuery(query).getMany(), query.limit, toProjection);
  }

  /** As `list`, without the views: PostgreSQL neither reads nor sends the `view` column (its jsonb is the row's bulk). */
  async listSummaries(query: RunListQuery & { readonly userId?: string }): Promise<RunPage<RunSummaryProjection>> {
    const columns = this.repository.metadata.columns.filter((column) => column.propertyName !== 'view').map((column) => `p.${column.propertyName}`);
    return pageOf(await this.listQuery(query).select(columns).getMany(), query.limit, toSummaryProjection);
  }

  private listQuery(query: RunListQuery & { readonly userId?: string }) {
    const builder = this.repository
      .createQueryBuilder('p')
      .where('true')
      .orderBy('p.created_at', 'DESC')
      .addOrderBy('p.run_id', 'DESC')
      .limit(query.limit + 1);
    if (query.userId !== undefined) builder.andWhere('p.user_id = :userId', { userId: query.userId });
    if (query.type !== undefined) builder.andWhere('p.workflow_type = :type', { type: query.type });
    if (query.createdFrom !== undefined) builder.andWhere('p.created_at >= :createdFrom', { createdFrom: query.createdFrom });
    if (query.createdBefore !== undefined) builder.andWhere('p.created_at < :createdBefore', { createdBefore: query.createdBefore });
    if (query.runIdPrefix !== undefined) builder.andWhere('p.run_id::text like :runIdPrefix', { runIdPrefix: `${query.runIdPrefix}%` });
    if (query.state !== undefined) builder.andWhere('p.state = :state', { state: query.state });
    if (query.after !== undefined) {
      builder.andWhere('(p.created_at, p.run_id) < (:afterCreatedAt, :afterRunId)', {
        afterCreatedAt: query.after.createdAt,
        afterRunId: query.after.runId,
      });
    }
    return builder;
  }
}

/** One page of `limit` rows from a query that asked for `limit + 1`: the extra row only says there is a next page. */
function pageOf<Run extends RunSummaryProjection>(entities: readonly RunProjectionEntity[], limit: number, toRun: (entity: RunProjectionEntity) => Run): RunPage<Run> {
  const items = entities.slice(0, limit).map(toRun);
  const last = items.at(-1);
  return entities.length > limit && last !== undefined ? { items, next: { createdAt: last.createdAt, runId: last.runId } } : { items };
}
