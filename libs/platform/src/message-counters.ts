import { readMessageCounts, type MessageCounts } from '@openpaw/messaging';
import { Counter, type Registry } from 'prom-client';

/**
 * The message budget's metric names (issue 23): what a process spent on messaging. Dashboards divide
 * them by the steps or runs of the same interval for messages per step; the hit-path budget spec
 * reads them from every service of a run.
 */
export const MESSAGE_COUNTER_METRICS = {
  published: 'openpaw_messages_published_total',
  delivered: 'openpaw_messages_delivered_total',
  validations: 'openpaw_message_validations_total',
  commits: 'openpaw_message_path_commits_total',
  lookups: 'openpaw_kept_reply_lookups_total',
  pulls: 'openpaw_consumer_pulls_total',
} as const;

/** A counter that follows a process counter: each scrape adds what it grew by since the last. */
export function following(registry: Registry, name: string, help: string, read: () => number): void {
  let seen = read();
  const counter: Counter = new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = read();
      if (now > seen) counter.inc(now - seen);
      seen = now;
    },
  });
}

/**
 * This process's message counters (libs/messaging's, counted on the hot path) on `registry`: JetStream
 * publishes, deliveries to its consumers, message validations (zod parses) and PostgreSQL commits of
 * the message path (kept replies, projections of messages; `moreCommits`: those counted elsewhere, such
 * as the coordinator's saga batches).
 */
export function registerMessageCounters(registry: Registry, options: { readonly moreCommits?: () => number } = {}): void {
  const counts = (pick: keyof MessageCounts) => () => readMessageCounts()[pick];
  const moreCommits = options.moreCommits ?? (() => 0);
  following(registry, MESSAGE_COUNTER_METRICS.published, 'JetStream publishes of this process (each awaited its PubAck).', counts('publishes'));
  following(registry, MESSAGE_COUNTER_METRICS.delivered, 'Messages delivered to the consumers of this process.', counts('deliveries'));
  following(registry, MESSAGE_COUNTER_METRICS.validations, 'Messages validated against their contract (zod parses), out and in.', counts('validations'));
  following(registry, MESSAGE_COUNTER_METRICS.lookups, 'Kept-reply look-ups of this process: a PostgreSQL round trip before a command is worked on (pure work looks up in its keep).', counts('lookups'));
  following(registry, MESSAGE_COUNTER_METRICS.pulls, "Pull requests of this process's consumers (each a subscription, a request and an unsubscribe).", counts('pulls'));
  following(registry, MESSAGE_COUNTER_METRICS.commits, 'PostgreSQL commits of the message path (saga batches, kept replies, projections of messages).', () => readMessageCounts().commits + moreCommits());
}
