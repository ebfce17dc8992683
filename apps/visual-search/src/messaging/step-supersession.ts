import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { DiscoverCandidates, parseEnvelope, SelectNextExpansion, VerifyEdge } from '@openpaw/contracts';
import { type InFlightAborts, NATS_CONNECTION } from '@openpaw/messaging';
import { MessageLogContext } from '@openpaw/platform';
import { VISUAL_RUN_ABORTS } from './run-ended.subscription.js';

/** The commands that are a numbered step of a visual degrees run. */
export const VISUAL_STEP_COMMANDS = [VerifyEdge, DiscoverCandidates, SelectNextExpansion] as const;

/**
 * A visual degrees run waits for one step at a time, and numbers each new step after the last (a retry
 * re-sends the same number): step N of a run sent means the saga no longer waits for any earlier step of
 * it (it re-planned, e.g. after a takedown cut the chain). This process's work on those stops through its
 * AbortSignal, and one picked up later (a redelivery) does not start. Not after the run ended, nor for a
 * step that a later one superseded already: that end covers it, and is kept.
 */
export function supersedeEarlierSteps(aborts: InFlightAborts<number>, log: Pick<MessageLogContext, 'info'>, runId: string, step: number): void {
  if (aborts.endedFor(runId, step) !== undefined) return;
  const aborted = aborts.end(runId, `superseded by step ${step}`, (earlier) => earlier < step);
  if (aborted > 0) log.info({ runId, step, aborted }, 'a later step of the run was sent: work on its earlier steps stopped');
}

/**
 * Every replica hears each visual step command as it is sent (a core subscription on the commands'
 * own subjects, beside the lane's durable that hands it to one replica): step N of a run stops the
 * work on that run's earlier steps in every replica, not only in the one that runs step N
 * (`supersedeEarlierSteps`). No message of its own: the command is the notice, heard the moment the
 * saga sends it, before any replica picks it up. Best effort, like `RunEnded`: a replica that misses it
 * finishes the old step within its caps, and the saga ignores that stale reply.
 */
@Injectable()
export class StepSupersessionSubscription implements OnModuleInit, OnApplicationShutdown {
  private subscriptions: Subscription[] = [];

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(VISUAL_RUN_ABORTS) private readonly aborts: InFlightAborts<number>,
    private readonly log: MessageLogContext,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscriptions = VISUAL_STEP_COMMANDS.map((definition) =>
      this.nc.subscribe(definition.subject, {
        callback: (error, message) => {
          if (error !== null) return;
          const parsed = parseEnvelope(definition, message.data);
          // An invalid command is the durable's to dead-letter; it supersedes nothing.
          if (!parsed.ok) return;
          supersedeEarlierSteps(this.aborts, this.log, parsed.envelope.data.runId, parsed.envelope.data.step);
        },
      }),
    );
    await this.nc.flush();
  }

  onApplicationShutdown(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }
}
