import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { RunEventBus } from '../events/run-event-bus.js';
import { projectionOf, type RunProjection, RunProjectionStore } from '../projection/run-projection.store.js';
import { streamEventsOf } from './visual-degrees.schemas.js';

/** Re-reads of the projection after a stream opens (ms), besides the heartbeat's. */
const CATCH_UP_READS_MS = [250, 1_000, 3_000];

/**
 * Server-sent events of a visual degrees run, in spec 03's types: `status`, `evidence`, `path_update`,
 * `final`, `no_path`, `error`. They are the run's own stream events (kept in its data by the saga and
 * published in its view with every change), so `id: <seq>` is stable and `Last-Event-ID` resumes after
 * that event, on any gateway replica. Live changes come from the run event bus; a heartbeat re-reads the
 * projection, so an event this replica missed still arrives. The stream ends after a terminal state.
 */
@Injectable()
export class VisualDegreesEventsStream implements BeforeApplicationShutdown {
  private readonly open = new Set<() => void>();

  constructor(
    private readonly runs: RunProjectionStore,
    private readonly bus: RunEventBus,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async stream(run: RunProjection, request: Request, response: Response): Promise<void> {
    const lastEventId = Number(request.headers['last-event-id']);
    let sentSeq = Number.isInteger(lastEventId) && lastEventId > 0 ? lastEventId : 0;
    let seenVersion = -1;
    let ended = false;
    let ready = false;
    const pending: RunProjection[] = [];

    const catchUps: NodeJS.Timeout[] = [];
    const end = (): void => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      for (const timer of catchUps) clearTimeout(timer);
      unsubscribe();
      this.open.delete(end);
      response.end();
    };

    // Each view holds every event so far: the newest version is all there is to send.
    const consider = (next: RunProjection): void => {
      if (ended || next.version <= seenVersion) return;
      seenVersion = next.version;
      for (const event of streamEventsOf(next.view)) {
        if (event.seq <= sentSeq) continue;
        response.write(`event: ${event.type}\nid: ${event.seq}\ndata: ${JSON.stringify({ ...event.data, at: event.at })}\n\n`);
        sentSeq = event.seq;
      }
      if (next.terminal) end();
    };

    const unsubscribe = this.bus.subscribe(run.runId, (event) => {
      if (event.kind !== 'stateChanged') return;
      const next = projectionOf(event.data);
      if (ready) consider(next);
      else pending.push(next);
    });
    const reread = (): void => {
      void this.runs.find(run.runId).then(
        (latest) => {
          if (latest !== undefined) consider(latest);
        },
        () => undefined,
      );
    };
    const heartbeat = setInterval(() => {
      if (ended) return;
      response.write(': heartbeat\n\n');
      reread();
    }, this.config.sseHeartbeatMs);
    // The projection's row can lag the live events by a moment: a client resuming just after a change
    // the bus already delivered would otherwise wait for the next heartbeat to hear of it.
    for (const afterMs of CATCH_UP_READS_MS) catchUps.push(setTimeout(reread, afterMs));
    this.open.add(end);
    response.on('close', end);

    response.status(200);
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-cache, no-transform');
    response.setHeader('Connection', 'keep-alive');
    response.setHeader('X-Accel-Buffering', 'no');
    response.flushHeaders();
    response.write('retry: 3000\n\n');

    // Read after subscribing, so no change falls between the read and the subscription.
    const fresh = (await this.runs.find(run.runId)) ?? run;
    ready = true;
    consider([fresh, ...pending].reduce((newest, next) => (next.version > newest.version ? next : newest)));
  }

  beforeApplicationShutdown(): void {
    for (const end of [...this.open]) end();
  }
}
