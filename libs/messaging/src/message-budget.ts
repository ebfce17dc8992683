import { messageValidations } from '@openpaw/contracts';

/**
 * What one process spent on messaging so far: JetStream publishes (each awaits a PubAck), deliveries
 * handed to this process's consumers, PostgreSQL commits of the message path (the coordinator's
 * batches, kept replies), kept-reply look-ups (a round trip to PostgreSQL before the work; pure work's
 * look-up rides in its keep and is not one) and message validations (zod parses of a message's data). Plain counters on
 * the hot path; the message budget spec reads them per saga step and `/metrics` exports them, so a
 * regression in messages per step shows in CI and in production alike.
 */
export const messageCounters = { publishes: 0, deliveries: 0, commits: 0, lookups: 0, pulls: 0 };

export interface MessageCounts {
  readonly publishes: number;
  readonly deliveries: number;
  readonly commits: number;
  readonly lookups: number;
  /**
   * Pull requests this process's consumers sent: each is a subscription on a new inbox, a request and
   * an unsubscribe (nats.js's `fetch`), so fewer, larger pulls cost the server and this process less.
   */
  readonly pulls: number;
  readonly validations: number;
}

/** The counters now (subtract two readings to count what happened in between). */
export function readMessageCounts(): MessageCounts {
  return { ...messageCounters, validations: messageValidations.count };
}

/** What happened between two readings. */
export function messageCountsSince(before: MessageCounts, after: MessageCounts = readMessageCounts()): MessageCounts {
  return {
    publishes: after.publishes - before.publishes,
    deliveries: after.deliveries - before.deliveries,
    commits: after.commits - before.commits,
    lookups: after.lookups - before.lookups,
    pulls: after.pulls - before.pulls,
    validations: after.validations - before.validations,
  };
}
