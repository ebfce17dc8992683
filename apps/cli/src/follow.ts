import { ApiError, type ApiClient, type RunResource } from './api-client.js';
import type { CliIo } from './io.js';

/** After this long without the gateway knowing the run, say so (once). */
const UNKNOWN_RUN_HINT_MS = 10_000;

/** What a follower does after seeing a run: keep following, or stop here. */
export type FollowStep = 'continue' | 'stop';

export interface FollowOptions {
  readonly timeoutMs: number;
  /** Events of earlier attempts (the gateway may still show the previous attempt's FAILED) are skipped. */
  readonly attemptNo?: number;
  /** Events at or before this run version are skipped (a retried run still shows the failed state it reopens). */
  readonly afterVersion?: number;
  /** Called with each state event of the run (duplicates included); `stop` ends the follow at this run. */
  readonly onRun: (run: RunResource) => FollowStep | Promise<FollowStep>;
}

/**
 * Follows the run's server-sent events (`GET /runs/:id/events`) until a terminal state of the attempt,
 * or until `onRun` says stop; never polls. Reconnects, resuming with `Last-Event-ID`, when the stream
 * drops or ends early, and while the gateway does not know the run yet (404 just after submission).
 * Answers the run it stopped at, or `undefined` when `timeoutMs` passed first (the run goes on).
 */
export async function followRun(api: ApiClient, runId: string, options: FollowOptions, io: CliIo): Promise<RunResource | undefined> {
  const deadline = io.now() + options.timeoutMs;
  let lastEventId: string | undefined;
  let backoffMs = 200;
  let warned = false;
  let unknownSince: number | undefined;
  while (io.now() < deadline) {
    try {
      for await (const event of api.events(`/runs/${encodeURIComponent(runId)}/events`, lastEventId, AbortSignal.timeout(Math.max(1, deadline - io.now())))) {
        if (event.event !== undefined && event.event !== 'state') continue;
        if (event.id !== undefined) lastEventId = event.id;
        const run = JSON.parse(event.data) as RunResource;
        if (options.attemptNo !== undefined && run.attemptNo < options.attemptNo) continue;
        if (options.afterVersion !== undefined && run.version <= options.afterVersion) continue;
        backoffMs = 200;
        unknownSince = undefined;
        if ((await options.onRun(run)) === 'stop' || run.terminal) return run;
      }
    } catch (error) {
      if (error instanceof ApiError && error.status !== 404) throw error;
      if (error instanceof ApiError) {
        // Not reported by the coordinator yet: it may be busy, or down (the run starts when it is back).
        unknownSince ??= io.now();
        if (!warned && io.now() - unknownSince > UNKNOWN_RUN_HINT_MS) {
          warned = true;
          io.stderr(`(the gateway has not heard of run ${runId} yet; is the coordinator running? still waiting)`);
        }
      } else if (!warned && io.now() < deadline) {
        warned = true;
        io.stderr(`(lost the event stream: ${(error as Error).message}; reconnecting)`);
      }
    }
    await io.sleep(backoffMs);
    backoffMs = Math.min(backoffMs * 2, 2000);
  }
  return undefined;
}
