import type { DataSource } from 'typeorm';
import { GATEWAY_SCHEMA } from '../../projection/run-projection.entity.js';

/** An asset version as the gateway knows it (its own projection of the assets service's events). */
export interface AssetRecord {
  readonly assetVersionId: string;
  readonly problemId: string | null;
  readonly assetType: string;
  readonly version: number | null;
  readonly storageKey: string;
  readonly contentType: string;
  /** The user of the run that produced it (the event envelope's `userid`, else that run's owner). */
  readonly userId: string | null;
  /** The run that produced it. */
  readonly runId: string | null;
  /** For a video: the solution it renders. */
  readonly solutionAssetVersionId: string | null;
  readonly durationMs: number | null;
  readonly createdAt: Date;
}

export interface AssetVersionCreatedRow {
  readonly assetVersionId: string;
  readonly problemId: string;
  readonly assetType: string;
  readonly version: number;
  readonly storageKey: string;
  readonly contentType: string;
  readonly userId: string | null;
  readonly runId: string;
  readonly createdAt: Date;
}

export interface VideoRenderedRow {
  readonly videoAssetVersionId: string;
  readonly solutionAssetVersionId: string;
  readonly storageKey: string;
  readonly durationMs: number;
  readonly userId: string | null;
  readonly runId: string;
  readonly createdAt: Date;
}

const ASSETS = `"${GATEWAY_SCHEMA}"."asset_projection"`;
const RUNS = `"${GATEWAY_SCHEMA}"."run_projection"`;
const VIDEO_CONTENT_TYPE = 'video/mp4';

interface AssetRow {
  asset_version_id: string;
  problem_id: string | null;
  asset_type: string;
  version: number | null;
  storage_key: string;
  content_type: string;
  user_id: string | null;
  run_id: string | null;
  solution_asset_version_id: string | null;
  duration_ms: number | null;
  created_at: Date;
}

function toRecord(row: AssetRow): AssetRecord {
  return {
    assetVersionId: row.asset_version_id,
    problemId: row.problem_id,
    assetType: row.asset_type,
    version: row.version,
    storageKey: row.storage_key,
    contentType: row.content_type,
    userId: row.user_id,
    runId: row.run_id,
    solutionAssetVersionId: row.solution_asset_version_id,
    durationMs: row.duration_ms,
    createdAt: row.created_at,
  };
}

/**
 * Reads and writes `gateway.asset_projection`. Both events upsert by asset version id, so
 * redeliveries and either order of `AssetVersionCreated` / `VideoRendered` for a video end in the
 * same row. Visibility questions join the run projection (the gateway's own tables only).
 */
export class AssetProjectionStore {
  constructor(private readonly dataSource: DataSource) {}

  async applyAssetVersionCreated(row: AssetVersionCreatedRow): Promise<void> {
    await this.dataSource.query(
      `insert into ${ASSETS} as a
         (asset_version_id, problem_id, asset_type, version, storage_key, content_type, user_id, run_id, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       on conflict (asset_version_id) do update set
         problem_id = excluded.problem_id,
         asset_type = excluded.asset_type,
         version = excluded.version,
         storage_key = excluded.storage_key,
         content_type = excluded.content_type,
         user_id = coalesce(a.user_id, excluded.user_id),
         run_id = coalesce(a.run_id, excluded.run_id),
         created_at = least(a.created_at, excluded.created_at)`,
      [row.assetVersionId, row.problemId, row.assetType, row.version, row.storageKey, row.contentType, row.userId, row.runId, row.createdAt],
    );
  }

  /** Links a video to its solution; creates the video's row when `AssetVersionCreated` has not arrived yet. */
  async applyVideoRendered(row: VideoRenderedRow): Promise<void> {
    await this.dataSource.query(
      `insert into ${ASSETS} as a
         (asset_version_id, problem_id, asset_type, storage_key, content_type, user_id, run_id, solution_asset_version_id, duration_ms, created_at)
       values ($1, (select s.problem_id from ${ASSETS} s where s.asset_version_id = $2), 'video', $3, $4, $5, $6, $2, $7, $8)
       on conflict (asset_version_id) do update set
         solution_asset_version_id = excluded.solution_asset_version_id,
         duration_ms = excluded.duration_ms,
         problem_id = coalesce(a.problem_id, excluded.problem_id),
         user_id = coalesce(a.user_id, excluded.user_id),
         run_id = coalesce(a.run_id, excluded.run_id)`,
      [row.videoAssetVersionId, row.solutionAssetVersionId, row.storageKey, VIDEO_CONTENT_TYPE, row.userId, row.runId, row.durationMs, row.createdAt],
    );
  }

  async find(assetVersionId: string): Promise<AssetRecord | undefined> {
    const rows = await this.dataSource.query<AssetRow[]>(`select * from ${ASSETS} where asset_version_id = $1`, [assetVersionId]);
    const row = rows[0];
    return row === undefined ? undefined : toRecord(row);
  }

  /**
   * Whether `userId` may see `asset` on its own account: they own the run that produced it, or one
   * of their runs was served it (its view's `output.asset_version_id`, e.g. a retrieval hit).
   */
  async directlyVisible(asset: AssetRecord, userId: string): Promise<boolean> {
    if (asset.userId === userId) return true;
    const rows = await this.dataSource.query<{ visible: boolean }[]>(
      `select exists (select 1 from ${RUNS} where user_id = $1 and run_id = $2)
           or exists (select 1 from ${RUNS} where (view #>> '{output,asset_version_id}') = $3 and user_id = $1) as visible`,
      [userId, asset.runId, asset.assetVersionId],
    );
    return rows[0]?.visible === true;
  }

  /** The solutions a video may render: its linked one, else (not linked yet) those of its problem. */
  async solutionsOfVideo(video: AssetRecord): Promise<AssetRecord[]> {
    if (video.solutionAssetVersionId !== null) {
      const solution = await this.find(video.solutionAssetVersionId);
      return solution === undefined ? [] : [solution];
    }
    if (video.problemId === null) return [];
    const rows = await this.dataSource.query<AssetRow[]>(
      `select * from ${ASSETS} where problem_id = $1 and asset_type = 'solution_html' order by created_at desc limit 20`,
      [video.problemId],
    );
    return rows.map(toRecord);
  }

  /** The newest video of a solution: linked to it, or (not linked yet) of the same problem. */
  async videoOf(solution: AssetRecord): Promise<AssetRecord | undefined> {
    const rows = await this.dataSource.query<AssetRow[]>(
      `select * from ${ASSETS}
        where asset_type = 'video'
          and (solution_asset_version_id = $1 or (solution_asset_version_id is null and problem_id = $2))
        order by created_at desc
        limit 1`,
      [solution.assetVersionId, solution.problemId],
    );
    const row = rows[0];
    return row === undefined ? undefined : toRecord(row);
  }
}
