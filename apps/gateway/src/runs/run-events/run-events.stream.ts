import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { RunEventBus } from '../../events/run-event-bus.js';
import { projectionOf, type RunProjection, RunProjectionStore } from '../../projection/run-projection.store.js';
import { RunResources } from '../run-resources.js';

/** Which run a stream is for, and how long to wait for one accepted a moment ago to be projected. */
export interface RunStreamRequest {
  readonly runId: string;
  /** Only this user's run is streamed; a stranger's is indistinguishable from a missing one. */
  readonly userId: string;
  readonly graceMs: number;
}

/**
 * Server-sent events for one run: the current state first, then every newer state (by version),
 * a heartbeat comment every `sseHeartbeatMs` (which also re-reads the projection, so an event this
 * replica missed still arrives), and the end of the stream after a terminal state.
 * Each event: `event: state`, `id: <version>` (so `Last-Event-ID` resumes), `data: <run JSON>`.
 */
@Injectable()
export class RunEventsStream implements BeforeApplicationShutdown {
  private readonly open = new Set<() => void>();

  constructor(
    private readonly runs: RunProjectionStore,
    private readonly bus: RunEventBus,
    private readonly resources: RunResources,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /**
   * Streams the user's run to `response` until it ends, the client leaves or the app stops. Answers
   * false, having written nothing, when there is no such run among the user's (after `graceMs`).
   * The run is read once, after subscribing to its events: that read both authorises the stream and
   * is its first state, and no change falls between the read and the subscription.
   */
  async stream(target: RunStreamRequest, request: Request, response: Response): Promise<boolean> {
    const lastEventId = Number(request.headers['last-event-id']);
    let sentVersion = Number.isInteger(lastEventId) ? lastEventId : -1;
    let current: RunProjection | undefined;
    let ended = false;
    // Set once the run is read; `end` may run before (the client leaves while it is read).
    let heartbeat: ReturnType<typeof setInterval> | undefined = undefined;
    const pending: RunProjection[] = [];

    /** Ends the stream, with `lastEvent` in the same write as the end (the terminal state). */
    const end = (lastEvent?: string): void => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      unsubscribe();
      this.open.delete(end);
      if (current !== undefined) response.end(lastEvent);
    };

    // A state's resource may read the blob store (a paper search's whole collection): the states are
    // written one after the other, in the order they came, each once its resource is read.
    let writing = Promise.resolve();
    const write = async (next: RunProjection): Promise<void> => {
      if (ended || current === undefined || next.version <= sentVersion) return;
      current = { ...next, createdAt: current.createdAt };
      sentVersion = next.version;
      const resource = await this.resources.of(current);
      if (ended) return;
      const event = `event: state\nid: ${next.version}\ndata: ${JSON.stringify(resource)}\n\n`;
      if (next.terminal) end(event);
      else response.write(event);
    };
    const send = (next: RunProjection): Promise<void> => {
      // A state that cannot be read whole is not sent shortened: the stream ends, and the client's
      // reconnect (Last-Event-ID, the version before it) asks for it again.
      writing = writing.then(() => write(next)).catch(() => end());
      return writing;
    };

    const unsubscribe = this.bus.subscribe(target.runId, (event) => {
      if (event.kind !== 'stateChanged') return;
      const next = projectionOf(event.data);
      if (current === undefined) pending.push(next);
      else void send(next);
    });
    this.open.add(end);
    response.on('close', () => end());

    // A run accepted a moment ago may not be projected yet (its first event is on its way): a client
    // that opens the stream right after submitting waits for it briefly instead of getting a 404.
    let run: RunProjection | undefined;
    try {
      run = await this.runs.findWhen(target.runId, () => true, { userId: target.userId, graceMs: target.graceMs });
    } finally {
      if (run === undefined) end();
    }
    if (run === undefined) return false;
    // The client left while the run was read.
    if (ended) return true;

    current = run;
    heartbeat = setInterval(() => {
      if (ended) return;
      response.write(': heartbeat\n\n');
      void this.runs.find(target.runId).then(
        (latest) => {
          if (latest !== undefined) void send(latest);
        },
        () => undefined,
      );
    }, this.config.sseHeartbeatMs);

    response.status(200);
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-cache, no-transform');
    response.setHeader('Connection', 'keep-alive');
    response.setHeader('X-Accel-Buffering', 'no');
    // The headers go out with this first line, in one write.
    response.write(`retry: 3000\n\n`);

    const known = [run, ...pending].sort((a, b) => a.version - b.version);
    for (const next of known) void send(next);
    await writing;
    // A client resuming (Last-Event-ID) after the terminal state has nothing more to hear.
    const newest = known.at(-1) ?? run;
    if (newest.terminal && sentVersion >= newest.version) end();
    return true;
  }

  beforeApplicationShutdown(): void {
    for (const end of [...this.open]) end();
  }
}
