import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { RunEventBus } from '../../events/run-event-bus.js';
import { projectionOf, type RunProjection, RunProjectionStore } from '../../projection/run-projection.store.js';
import { toRunResource } from '../runs.schemas.js';

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
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** Streams `run` (already authorised) to `response` until it ends, the client leaves or the app stops. */
  async stream(run: RunProjection, request: Request, response: Response): Promise<void> {
    const lastEventId = Number(request.headers['last-event-id']);
    let sentVersion = Number.isInteger(lastEventId) ? lastEventId : -1;
    let current = run;
    let ended = false;
    const pending: RunProjection[] = [];

    const end = (): void => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      unsubscribe();
      this.open.delete(end);
      response.end();
    };

    const send = (next: RunProjection): void => {
      if (ended || next.version <= sentVersion) return;
      current = { ...next, createdAt: current.createdAt };
      sentVersion = next.version;
      response.write(`event: state\nid: ${next.version}\ndata: ${JSON.stringify(toRunResource(current))}\n\n`);
      if (next.terminal) end();
    };

    let ready = false;
    const unsubscribe = this.bus.subscribe(run.runId, (event) => {
      if (event.kind !== 'stateChanged') return;
      const next = projectionOf(event.data);
      if (ready) send(next);
      else pending.push(next);
    });
    const heartbeat = setInterval(() => {
      if (ended) return;
      response.write(': heartbeat\n\n');
      void this.runs.find(run.runId).then(
        (latest) => {
          if (latest !== undefined) send(latest);
        },
        () => undefined,
      );
    }, this.config.sseHeartbeatMs);
    this.open.add(end);
    response.on('close', end);

    response.status(200);
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-cache, no-transform');
    response.setHeader('Connection', 'keep-alive');
    response.setHeader('X-Accel-Buffering', 'no');
    response.flushHeaders();
    response.write(`retry: 3000\n\n`);

    // The state read after subscribing, so no change falls between the read and the subscription.
    const fresh = (await this.runs.find(run.runId)) ?? run;
    ready = true;
    const known = [fresh, ...pending].sort((a, b) => a.version - b.version);
    for (const next of known) send(next);
    // A client resuming (Last-Event-ID) after the terminal state has nothing more to hear.
    const newest = known.at(-1) ?? fresh;
    if (newest.terminal && sentVersion >= newest.version) end();
  }

  beforeApplicationShutdown(): void {
    for (const end of [...this.open]) end();
  }
}
