import { ALL_SERVICES, createDatabase, type RunningPlatform, type ServiceName, startNatsServer, startPlatformProcesses, startPostgresServer } from '@openpaw/testing';
import { devToken, distinctProblem, driveProblem, type ProblemOutcome } from './load-client.js';
import { collectPlatformFacts, type PlatformFacts, videoRunsPending } from './platform-facts.js';

export interface LoadOptions {
  /** Repository root (holds `dist/`). */
  readonly root: string;
  readonly problems: number;
  readonly ratePerSecond: number;
  readonly users: number;
  /** SIGKILL a random service every 2 s (restarted as an orchestrator would), one nats-server kill, one PostgreSQL immediate stop. */
  readonly faults: boolean;
  /** How long to wait for every accepted run to end, after the last submission. */
  readonly settleMs?: number;
  /** How long to wait for the video backlog to drain afterwards (0: do not wait). */
  readonly videoDrainMs?: number;
  /** Extra env for every service (e.g. policy overrides); default: the platform's defaults, video on. */
  readonly env?: Readonly<Record<string, string>>;
  readonly log?: (line: string) => void;
}

export interface LoadReport {
  readonly options: Omit<LoadOptions, 'log' | 'root'>;
  readonly submitted: number;
  readonly outcomes: readonly ProblemOutcome[];
  readonly succeeded: number;
  readonly failedByReason: Readonly<Record<string, number>>;
  readonly rejected429: number;
  readonly rejectedWithoutRetryAfter: number;
  readonly unfinished: number;
  readonly msToResult: { readonly p50: number; readonly p99: number; readonly max: number };
  /** From the last run's end until every video run ended; null when not waited for or not drained. */
  readonly videoDrainMs: number | null;
  readonly faultsInjected: readonly string[];
  readonly facts: PlatformFacts;
  /** When a run did not succeed: the last lines each service printed, to tell why without a rerun. */
  readonly serviceLogTails: Readonly<Record<string, string>>;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The load and fault harness: a private nats-server and PostgreSQL (fsync on), every service from the
 * build as its own process (as `./scripts/up.sh` runs them), `problems` distinct new problems from
 * `users` users at `ratePerSecond`, optionally with faults; then what users saw and what the
 * platform recorded.
 */
export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const log = options.log ?? (() => undefined);
  const nats = await startNatsServer();
  const postgres = await startPostgresServer({ fsync: true });
  const databaseUrl = await createDatabase(postgres.adminUrl, `load_${Date.now()}`);
  let platform: RunningPlatform | undefined;
  const faultsInjected: string[] = [];
  try {
    platform = await startPlatformProcesses({ root: options.root, natsUrl: nats.url, databaseUrl, ...(options.env === undefined ? {} : { env: options.env }) });
    const running = platform;
    log(`platform up: gateway ${running.gatewayUrl}`);
    const tokens = await Promise.all(Array.from({ length: options.users }, (_, u) => devToken(running.jwtSecret, `load-user-${u + 1}`)));
    const durationMs = (options.problems / options.ratePerSecond) * 1000;
    const settleMs = options.settleMs ?? 120_000;
    const deadline = Date.now() + durationMs + settleMs;
    const salt = Date.now() % 1000;

    let stopFaults = false;
    const faults = options.faults ? injectFaults(running, nats, postgres, durationMs, faultsInjected, () => stopFaults, log) : Promise.resolve();

    const started = Date.now();
    const drives: Promise<ProblemOutcome>[] = [];
    for (let i = 0; i < options.problems; i += 1) {
      const due = started + (i * 1000) / options.ratePerSecond;
      if (due > Date.now()) await delay(due - Date.now());
      drives.push(driveProblem(() => running.gatewayUrl, tokens[i % tokens.length] ?? '', distinctProblem(i, salt), deadline));
    }
    log(`submitted ${options.problems} problems in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const outcomes = await Promise.all(drives);
    stopFaults = true;
    await faults;
    const lastEnd = Date.now();
    log('every submission answered; waiting for the video backlog');

    let videoDrainMs: number | null = null;
    if ((options.videoDrainMs ?? 0) > 0) {
      const drainDeadline = Date.now() + (options.videoDrainMs ?? 0);
      for (;;) {
        const pending = await videoRunsPending(databaseUrl).catch(() => Number.NaN);
        if (pending === 0) {
          videoDrainMs = Date.now() - lastEnd;
          break;
        }
        if (Date.now() > drainDeadline) break;
        await delay(1_000);
      }
    }

    const ended = outcomes.filter((o): o is Extract<ProblemOutcome, { kind: 'ended' }> => o.kind === 'ended');
    const rejected = outcomes.filter((o): o is Extract<ProblemOutcome, { kind: 'rejected' }> => o.kind === 'rejected');
    const failedByReason: Record<string, number> = {};
    for (const o of ended) if (o.state !== 'SUCCEEDED') failedByReason[`${o.state}:${o.errorCode ?? 'unknown'}`] = (failedByReason[`${o.state}:${o.errorCode ?? 'unknown'}`] ?? 0) + 1;
    const times = ended.filter((o) => o.state === 'SUCCEEDED').map((o) => o.msToResult);
    const { log: _log, root: _root, ...reported } = options;
    const allSucceeded = ended.length === outcomes.length - rejected.length && Object.keys(failedByReason).length === 0;
    const serviceLogTails = allSucceeded ? {} : Object.fromEntries(ALL_SERVICES.map((s) => [s, running.logs(s).split('\n').slice(-25).join('\n')]));
    return {
      serviceLogTails,
      options: reported,
      submitted: options.problems,
      outcomes,
      succeeded: ended.filter((o) => o.state === 'SUCCEEDED').length,
      failedByReason,
      rejected429: rejected.length,
      rejectedWithoutRetryAfter: rejected.filter((o) => o.retryAfterSeconds === null || !(o.retryAfterSeconds > 0)).length,
      unfinished: outcomes.filter((o) => o.kind === 'unfinished').length,
      msToResult: { p50: percentile(times, 50), p99: percentile(times, 99), max: Math.max(0, ...times) },
      videoDrainMs,
      faultsInjected,
      facts: await collectPlatformFacts(databaseUrl, nats.url),
    };
  } finally {
    await platform?.stop();
    await nats.dispose();
    await postgres.dispose();
  }
}

/**
 * Faults while the load runs: every 2 s a random service is SIGKILLed and started again (as an
 * orchestrator restarts a crashed pod; never two restarts of one service at once); a third of the way
 * in, nats-server is killed (SIGKILL) and restarted; two thirds in, PostgreSQL stops immediately and
 * restarts (crash recovery).
 */
async function injectFaults(
  platform: RunningPlatform,
  nats: { crashAndRestart(downMs?: number): Promise<void> },
  postgres: { crashAndRestart(downMs?: number): Promise<void> },
  durationMs: number,
  injected: string[],
  stopped: () => boolean,
  log: (line: string) => void,
): Promise<void> {
  const restarting = new Map<ServiceName, Promise<void>>();
  const begun = Date.now();
  let natsDone = false;
  let postgresDone = false;
  const restarts: Promise<void>[] = [];
  while (!stopped() && Date.now() - begun < durationMs) {
    await delay(2_000);
    const elapsed = Date.now() - begun;
    if (!natsDone && elapsed > durationMs / 3) {
      natsDone = true;
      injected.push(`nats-server SIGKILL at ${(elapsed / 1000).toFixed(1)} s`);
      log(injected.at(-1) ?? '');
      await nats.crashAndRestart(1_000);
      continue;
    }
    if (!postgresDone && elapsed > (2 * durationMs) / 3) {
      postgresDone = true;
      injected.push(`PostgreSQL immediate stop at ${(elapsed / 1000).toFixed(1)} s`);
      log(injected.at(-1) ?? '');
      await postgres.crashAndRestart(1_000);
      continue;
    }
    const candidates = ALL_SERVICES.filter((s) => !restarting.has(s));
    const victim = candidates[Math.floor(Math.random() * candidates.length)];
    if (victim === undefined) continue;
    injected.push(`SIGKILL ${victim} at ${(elapsed / 1000).toFixed(1)} s`);
    await platform.kill(victim);
    const restart = platform
      .start(victim)
      .catch((error: unknown) => {
        injected.push(`restart of ${victim} FAILED: ${String(error)}`);
        log(injected.at(-1) ?? '');
      })
      .finally(() => restarting.delete(victim));
    restarting.set(victim, restart);
    restarts.push(restart);
  }
  await Promise.all(restarts);
}
