import { Injectable } from '@nestjs/common';
import { type RecentDurations, type RunProjection, RunProjectionStore } from '../../projection/run-projection.store.js';

export interface Eta {
  /** Seconds left (never negative), or null when there is no finished run to learn from. */
  readonly seconds: number | null;
  readonly sampleSize: number;
}

/** How many recent successful runs the median is taken over. */
export const ETA_SAMPLE_SIZE = 50;
/** How long a median is reused before the projection is asked again (the hot path stays one query). */
export const ETA_CACHE_MS = 5_000;

/**
 * The ETA of a running run. Estimated from the gateway's own projection, never from the
 * coordinator: the median duration of the last `ETA_SAMPLE_SIZE` successful top-level runs of the
 * same workflow type (their WorkflowResult `duration_ms`, else first-event-to-terminal-event time
 * of the attempt), minus the time the current attempt has been running (since its first event, or
 * 0 for a run the coordinator has not reported yet). Hits and misses share one median, so it is a
 * rough figure: a hit usually ends well before it, a slow generation after it (then it says 0).
 */
export function etaSeconds(durations: RecentDurations, elapsedMs: number): Eta {
  if (durations.medianMs === undefined) return { seconds: null, sampleSize: durations.sampleSize };
  const leftMs = Math.max(0, durations.medianMs - Math.max(0, elapsedMs));
  return { seconds: Math.round(leftMs / 100) / 10, sampleSize: durations.sampleSize };
}

@Injectable()
export class RunEtaEstimator {
  private readonly cache = new Map<string, { readonly at: number; readonly durations: Promise<RecentDurations> }>();

  constructor(private readonly runs: RunProjectionStore) {}

  /** The ETA of `run` (its current attempt), or of a run just submitted when `run` is undefined. */
  async estimate(workflowType: string, run: RunProjection | undefined, now: Date = new Date()): Promise<Eta> {
    const started = run === undefined ? undefined : (run.attemptStartedAt ?? run.createdAt);
    const elapsedMs = started === undefined ? 0 : now.getTime() - started.getTime();
    return etaSeconds(await this.durations(workflowType, now.getTime()), elapsedMs);
  }

  private durations(workflowType: string, nowMs: number): Promise<RecentDurations> {
    const cached = this.cache.get(workflowType);
    if (cached !== undefined && nowMs - cached.at < ETA_CACHE_MS) return cached.durations;
    const durations = this.runs.recentDurations(workflowType, 'SUCCEEDED', ETA_SAMPLE_SIZE);
    this.cache.set(workflowType, { at: nowMs, durations });
    // A failed query is not cached.
    void durations.catch(() => this.cache.delete(workflowType));
    return durations;
  }
}
