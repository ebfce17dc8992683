import { Inject, Injectable, Logger } from '@nestjs/common';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { ARTIFACT_JOB_WORKFLOW, catalog, criticalBacklogDurables, RESEARCH_WORKFLOW, STREAMS, VISUAL_DEGREES } from '@openpaw/contracts';
import { consumerInfoIfExists, GroupRunner, NATS_CONNECTION } from '@openpaw/messaging';
import type { DataSource } from 'typeorm';
import { GATEWAY_DATA_SOURCE } from '../projection/database.js';
import { type PreparedSql, preparedSql } from '@openpaw/persistence';
import { RUN_ADMISSIONS_TABLE, RUN_IN_FLIGHT_COUNTS_TABLE, RUN_PROJECTION_TABLE } from '../projection/run-projection.store.js';
import { RETRIEVE_OR_GENERATE } from '../problems/workflow-result.js';
import { ADMISSION_LIMITS, type AdmissionLimits, type Tier } from './admission-limits.js';
import { type Admitted, AdmittedRuns } from './admitted-runs.js';
import { TokenBuckets } from './token-bucket.js';

/** Workflows users start themselves (their runs count as in flight; background runs do not). */
export const USER_STARTED_WORKFLOWS: readonly string[] = [
  RETRIEVE_OR_GENERATE,
  ARTIFACT_JOB_WORKFLOW,
  VISUAL_DEGREES,
  RESEARCH_WORKFLOW,
];
/** A research draft (spec 05) waits for its user indefinitely and runs nothing: not in flight. */
export const RESEARCH_DRAFT_STATE = 'draft';
/** Backlog and totals are read at most this often; one reading serves every request meanwhile. */
const READING_TTL_MS = 250;
/** A run admitted here counts as in flight until the projection shows it (covers the projection's lag). */
const UNPROJECTED_GRACE_MS = 30_000;
/**
 * Everyone's runs in flight are read at most this often; one reading serves every start meanwhile
 * (with the admissions made here since added), so a burst of starts costs one platform-wide count,
 * not one each. A user's own count is read on every start: a tier's in-flight limit is small and exact.
 */
const PLATFORM_READING_TTL_MS = 100;

export type AdmissionDecision =
  | { readonly admitted: true }
  | { readonly admitted: false; readonly reason: 'rate_limited' | 'too_many_in_flight' | 'platform_busy'; readonly retryAfterSeconds: number; readonly detail: string };

/** What a run's input costs beyond the run itself. */
export interface AdmissionCost {
  /** A problem image's width × height in megapixels. */
  readonly megapixels?: number;
}

/** States in which a run's problem image waits for or is being read by ingestion. */
const READING_STATES: ReadonlySet<string> = new Set(['INITIATED', 'INGESTING']);

/** What the projection shows of a run admitted here. */
interface Projected {
  readonly terminal: boolean;
  readonly state: string;
}

/** Everyone's runs in flight, as the projection showed them at one moment, with what this gateway admitted then. */
interface PlatformReading {
  readonly at: number;
  /** `AdmittedRuns.admissions` and `.megapixels` when the reading was sent: what was admitted after is not in it. */
  readonly admissionsBefore: number;
  readonly megapixelsBefore: number;
  /** Runs in flight the projection showed. */
  readonly projected: number;
  /** Runs admitted here before the reading that the projection did not show. */
  readonly unprojected: number;
  /** Megapixels of images admitted here before the reading and not read by then. */
  readonly readingMegapixels: number;
}

/**
 * Admission control at the edge: per-user rate (token bucket) and in-flight limits by tier, a
 * global in-flight bound and a bound on the critical lanes' backlog. In-flight counts come from the
 * projection (shared by every gateway replica): its per-user counters, kept by triggers in the
 * transaction of each projection write (so a start reads one row, not every run of its user), plus
 * runs admitted here that it does not show yet.
 */
@Injectable()
export class AdmissionControl {
  readonly #buckets = new TokenBuckets();
  private readonly logger = new Logger(AdmissionControl.name);
  /** Runs admitted by this gateway and not yet seen ended. */
  readonly #admitted = new AdmittedRuns();
  #backlog: { readonly at: number; readonly value: Promise<number> } | undefined;
  #platform: { readonly at: number; readonly value: Promise<PlatformReading> } | undefined;
  /** Each admission's tier, recorded for the ops page: many starts, one statement. */
  readonly #tierRecords: GroupRunner<{ readonly runId: string; readonly userId: string; readonly tier: Tier }, undefined>;
  #jsm: Promise<JetStreamManager> | undefined;
  /** Every start reads the in-flight counts and records its admission: named statements. */
  private readonly sql: PreparedSql;

  constructor(
    @Inject(ADMISSION_LIMITS) readonly limits: AdmissionLimits,
    @Inject(GATEWAY_DATA_SOURCE) dataSource: DataSource,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {
    this.sql = preparedSql(dataSource, 'gateway_admission');
    // The tier is a label for the ops page, not a record anything is rebuilt from: its commit need
    // not wait for the WAL flush (a crash loses at most the last moments' labels, shown as "tier not recorded").
    const labels = preparedSql(dataSource, 'gateway_admission_tier', { synchronousCommit: 'off' });
    this.#tierRecords = new GroupRunner<{ readonly runId: string; readonly userId: string; readonly tier: Tier }, undefined>(async (records) => {
      await labels.query(
        `insert into ${RUN_ADMISSIONS_TABLE} (run_id, user_id, tier) select * from unnest($1::uuid[], $2::text[], $3::text[]) on conflict (run_id) do nothing`,
        [records.map((r) => r.runId), records.map((r) => r.userId), records.map((r) => r.tier)],
      );
      return records.map(() => undefined);
    });
  }

  /** Decides whether `userId` may start a new run now; on admission, call `started` with its run id (and the same cost). */
  async admit(userId: string, tier: Tier, nowMs = Date.now(), cost: AdmissionCost = {}): Promise<AdmissionDecision> {
    const limits = this.limits.tiers[tier];
    const backlog = await this.criticalBacklog(nowMs);
    if (backlog > this.limits.maxCriticalBacklog) {
      return { admitted: false, reason: 'platform_busy', retryAfterSeconds: 2, detail: `${backlog} critical commands are queued (limit ${this.limits.maxCriticalBacklog})` };
    }
    const { user, total, readingMegapixels } = await this.inFlight(userId, nowMs);
    const megapixels = cost.megapixels ?? 0;
    // The first image is always admitted (a single image is bounded by MAX_PROBLEM_IMAGE_PIXELS).
    if (megapixels > 0 && readingMegapixels > 0 && readingMegapixels + megapixels > this.limits.maxIngestingMegapixels) {
      return {
        admitted: false,
        reason: 'platform_busy',
        retryAfterSeconds: 2,
        detail: `${formatMegapixels(readingMegapixels)} MP of images are being read; this one (${formatMegapixels(megapixels)} MP) would pass the limit of ${this.limits.maxIngestingMegapixels} MP`,
      };
    }
    if (total >= this.limits.maxInFlightTotal) {
      return { admitted: false, reason: 'platform_busy', retryAfterSeconds: 2, detail: `${total} runs are in flight (limit ${this.limits.maxInFlightTotal})` };
    }
    if (user >= limits.maxInFlight) {
      return { admitted: false, reason: 'too_many_in_flight', retryAfterSeconds: 1, detail: `you have ${user} runs in flight (the ${tier} tier allows ${limits.maxInFlight})` };
    }
    const waitMs = this.#buckets.take(userId, limits.ratePerSecond, limits.burst, nowMs);
    if (waitMs > 0) {
      return {
        admitted: false,
        reason: 'rate_limited',
        retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
        detail: `the ${tier} tier starts at most ${limits.ratePerSecond} runs per second (burst ${limits.burst})`,
      };
    }
    return { admitted: true };
  }

  /**
   * Records a run this gateway admitted (counted in flight until the projection shows it ended), and
   * its tier in `run_admissions` for the ops page's in-flight runs per tier. That write is not
   * awaited: admission answers the user now; a write lost to an outage shows as "tier not recorded".
   */
  started(runId: string, userId: string, tier: Tier, nowMs = Date.now(), cost: AdmissionCost = {}): void {
    this.#admitted.add(runId, { userId, tier, at: nowMs, megapixels: cost.megapixels ?? 0 });
    void this.#tierRecords
      .submit({ runId, userId, tier })
      .catch((error: unknown) => this.logger.warn(`run ${runId}: its tier (${tier}) was not recorded: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** Whether this gateway admitted `runId` for `userId` and has not seen it end (its projection may lag). */
  admittedHere(runId: string, userId: string): boolean {
    return this.#admitted.get(runId)?.userId === userId;
  }

  /** Runs admitted here and not ended, by tier (for metrics); forgets ended ones. */
  async inFlightByTier(): Promise<Record<Tier, number>> {
    await this.forgetEnded(Date.now());
    const counts: Record<Tier, number> = { free: 0, pro: 0, enterprise: 0 };
    for (const admitted of this.#admitted.values()) counts[admitted.tier] += 1;
    return counts;
  }

  /**
   * The user's and everyone's runs in flight: the projection's, plus those admitted here that it does
   * not show yet; and the megapixels of images admitted here not yet read. The user's come from one
   * statement reading both their counters and what the projection knows of their runs admitted here;
   * everyone's from the shared platform reading, plus what was admitted here since it.
   */
  private async inFlight(userId: string, nowMs: number): Promise<{ readonly user: number; readonly total: number; readonly readingMegapixels: number }> {
    // Only the runs the projection was not yet seen to show: those it shows are in its counters.
    const mineHere = this.#admitted.unprojectedOfUser(userId);
    const [platform, [row]] = await Promise.all([
      this.platformReading(nowMs),
      this.sql.query<{ user_count: string; admitted: Array<[string, boolean, string]> }>(
        `select coalesce(sum(runs), 0) as user_count,
                (select coalesce(json_agg(json_build_array(a.run_id, a.terminal, a.state)), '[]') from ${RUN_PROJECTION_TABLE} a where a.run_id = any($3::uuid[])) as admitted
         from ${RUN_IN_FLIGHT_COUNTS_TABLE} where user_id = $1 and workflow_type = any($2::text[])`,
        [userId, USER_STARTED_WORKFLOWS, mineHere],
      ),
    ]);
    const projected = new Map((row?.admitted ?? []).map(([runId, terminal, state]) => [runId, { terminal, state }] as const));
    const mine = this.forget(mineHere, projected, nowMs).length;
    const since = this.#admitted.admissions - platform.admissionsBefore;
    return {
      user: Number(row?.user_count ?? 0) + mine,
      total: platform.projected + platform.unprojected + since,
      readingMegapixels: platform.readingMegapixels + (this.#admitted.megapixels - platform.megapixelsBefore),
    };
  }

  /** Everyone's runs in flight: read at most every `PLATFORM_READING_TTL_MS`, shared by the starts meanwhile. */
  private platformReading(nowMs: number): Promise<PlatformReading> {
    if (this.#platform !== undefined && nowMs - this.#platform.at < PLATFORM_READING_TTL_MS) return this.#platform.value;
    const value = this.readPlatform(nowMs);
    this.#platform = { at: nowMs, value };
    // A failed reading is not kept: the next start reads again.
    value.catch(() => {
      if (this.#platform?.value === value) this.#platform = undefined;
    });
    return value;
  }

  private async readPlatform(nowMs: number): Promise<PlatformReading> {
    const admissionsBefore = this.#admitted.admissions;
    const megapixelsBefore = this.#admitted.megapixels;
    const ids = this.#admitted.runIds();
    const [row] = await this.sql.query<{ total_count: string; admitted: Array<[string, boolean, string]> }>(
      `select coalesce(sum(runs), 0) as total_count,
              (select coalesce(json_agg(json_build_array(a.run_id, a.terminal, a.state)), '[]') from ${RUN_PROJECTION_TABLE} a where a.run_id = any($2::uuid[])) as admitted
       from ${RUN_IN_FLIGHT_COUNTS_TABLE} where workflow_type = any($1::text[])`,
      [USER_STARTED_WORKFLOWS, ids],
    );
    const projected = new Map((row?.admitted ?? []).map(([runId, terminal, state]) => [runId, { terminal, state }] as const));
    const unprojected = this.forget(ids, projected, nowMs);
    let readingMegapixels = 0;
    for (const runId of ids) {
      const admitted = this.#admitted.get(runId);
      const state = projected.get(runId)?.state;
      if (admitted !== undefined && admitted.megapixels > 0 && (state === undefined || READING_STATES.has(state))) readingMegapixels += admitted.megapixels;
    }
    return { at: nowMs, admissionsBefore, megapixelsBefore, projected: Number(row?.total_count ?? 0), unprojected: unprojected.length, readingMegapixels };
  }

  /** Drops admitted runs the projection shows ended (or that it never showed within the grace); returns those it does not show yet. */
  private async forgetEnded(nowMs: number): Promise<Admitted[]> {
    if (this.#admitted.size === 0) return [];
    const ids = this.#admitted.runIds();
    const rows = await this.sql.query<{ run_id: string; terminal: boolean; state: string }>(`select run_id, terminal, state from ${RUN_PROJECTION_TABLE} where run_id = any($1::uuid[])`, [ids]);
    return this.forget(ids, new Map(rows.map((r) => [r.run_id, { terminal: r.terminal, state: r.state }])), nowMs);
  }

  /**
   * Of `runIds` admitted here: drops those the projection shows ended (or never showed within the
   * grace, or no longer shows), marks those it shows running; returns those it does not show yet.
   */
  private forget(runIds: readonly string[], projected: ReadonlyMap<string, Projected>, nowMs: number): Admitted[] {
    const unprojected: Admitted[] = [];
    for (const runId of runIds) {
      const admitted = this.#admitted.get(runId);
      if (admitted === undefined) continue;
      const terminal = projected.get(runId)?.terminal;
      if (terminal === true) this.#admitted.delete(runId);
      else if (terminal === false) this.#admitted.markProjected(runId);
      // Shown before and gone now: its row was removed (retention removes ended runs only).
      else if (this.#admitted.isProjected(runId) || nowMs - admitted.at > UNPROJECTED_GRACE_MS) this.#admitted.delete(runId);
      else unprojected.push(admitted);
    }
    return unprojected;
  }

  /** Commands waiting (not yet delivered) on the coordinator's and every service's critical lane. */
  private criticalBacklog(nowMs: number): Promise<number> {
    if (this.#backlog !== undefined && nowMs - this.#backlog.at < READING_TTL_MS) return this.#backlog.value;
    const value = this.readCriticalBacklog();
    this.#backlog = { at: nowMs, value };
    return value;
  }

  private async readCriticalBacklog(): Promise<number> {
    try {
      this.#jsm ??= jetstreamManager(this.nc);
      const jsm = await this.#jsm;
      const infos = await Promise.all(criticalBacklogDurables(catalog).map((durable) => consumerInfoIfExists(jsm, STREAMS.commands.name, durable)));
      return infos.reduce((sum, info) => sum + (info?.num_pending ?? 0), 0);
    } catch {
      this.#jsm = undefined;
      // Unreadable (NATS reconnecting): do not refuse users for it; readiness reports the outage.
      return 0;
    }
  }
}

function formatMegapixels(megapixels: number): string {
  return megapixels >= 10 ? megapixels.toFixed(0) : megapixels.toFixed(1);
}
