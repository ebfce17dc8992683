import type { BlobInfo, BlobStore } from '@openpaw/providers';
import type { DataSource } from 'typeorm';
import { runPaperSetsPrefix } from '../papers/paper-sets.js';

/**
 * A list stored more than this after the recorded end means the run was retried after it failed and
 * works again: its lists are not swept. Lists written less than this after the end are the work in
 * flight when the run ended (a step finishing after a cancel or a failure by timeout; steps are
 * bounded by their deadlines, minutes), plus clock differences between the coordinator and the store.
 * A retry within this hour that then waits at a checkpoint past the retention loses only what an
 * export reads, and the export falls back to the view's papers.
 */
const IN_FLIGHT_SLACK_MS = 3_600_000;
/** Runs swept per transaction (their rows stay locked while their lists are deleted). */
const RUNS_PER_BATCH = 50;

export interface SweepReport {
  /** Runs whose lists were deleted (their end recorded more than the retention ago). */
  readonly runsSwept: number;
  readonly listsDeleted: number;
  /** Runs with a list newer than their end (retried after failing): left, with their end forgotten until they end again. */
  readonly runsReopened: number;
}

/**
 * Retention of the stored paper lists (ADR 0031): a paper-search run's folder (`paper-search/<runId>/`)
 * is deleted once the run ended (`RunEnded`, recorded by `recordEnd`) more than the retention ago. A
 * run that has not ended is never swept, however long it waits at a checkpoint. Replicas sweep at the
 * same time safely: each takes the rows it locks (`for update skip locked`), and deleting what is gone
 * already is a no-op, so a sweep cut short is finished by the next.
 */
export class PaperSetRetention {
  constructor(
    private readonly db: DataSource,
    private readonly blobs: BlobStore | null,
    private readonly retentionMs: number,
  ) {}

  /** Records a paper-search run's end; a later end (after a retry) moves it later, never earlier. */
  async recordEnd(runId: string, endedAt: Date): Promise<void> {
    await this.db.query(
      `insert into research.paper_set_run_ends (run_id, ended_at) values ($1, $2)
       on conflict (run_id) do update set ended_at = greatest(research.paper_set_run_ends.ended_at, excluded.ended_at)`,
      [runId, endedAt],
    );
  }

  /** Deletes the lists of every run that ended before `now` minus the retention; without a blob store there is nothing to sweep. */
  async sweep(now: Date): Promise<SweepReport> {
    let report: SweepReport = { runsSwept: 0, listsDeleted: 0, runsReopened: 0 };
    const blobs = this.blobs;
    if (blobs === null) return report;
    const cutoff = new Date(now.getTime() - this.retentionMs);
    for (;;) {
      const batch = await this.db.transaction(async (tx) => {
        const due = await tx.query<{ run_id: string; ended_at: Date }[]>(
          `select run_id, ended_at from research.paper_set_run_ends where ended_at < $1 order by ended_at limit $2 for update skip locked`,
          [cutoff, RUNS_PER_BATCH],
        );
        let swept = 0;
        let deleted = 0;
        let reopened = 0;
        for (const { run_id: runId, ended_at: endedAt } of due) {
          const lists = await listAll(blobs, runPaperSetsPrefix(runId));
          if (lists.some((list) => Date.parse(list.updatedAt) > endedAt.getTime() + IN_FLIGHT_SLACK_MS)) {
            reopened += 1;
          } else {
            for (const list of lists) if (await blobs.delete(list.key)) deleted += 1;
            swept += 1;
          }
          // Swept, or working again (its next end records a new row): either way this end is done with.
          await tx.query(`delete from research.paper_set_run_ends where run_id = $1`, [runId]);
        }
        return { rows: due.length, swept, deleted, reopened };
      });
      report = { runsSwept: report.runsSwept + batch.swept, listsDeleted: report.listsDeleted + batch.deleted, runsReopened: report.runsReopened + batch.reopened };
      if (batch.rows < RUNS_PER_BATCH) return report;
    }
  }
}

async function listAll(blobs: BlobStore, prefix: string): Promise<BlobInfo[]> {
  const items: BlobInfo[] = [];
  let pageToken: string | undefined;
  do {
    const page = await blobs.list({ prefix, pageSize: 1000, ...(pageToken === undefined ? {} : { pageToken }) });
    items.push(...page.items);
    pageToken = page.nextPageToken;
  } while (pageToken !== undefined);
  return items;
}
