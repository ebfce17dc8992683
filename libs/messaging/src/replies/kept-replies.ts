import type { Reply } from './reply.js';

/**
 * A service's record of how it answered each command (its schema's `command_replies` table), so a
 * redelivered command is answered again with the very same replies (same ids) and no second side
 * effect. The first answer kept for a command wins.
 */
export interface KeptReplyStore {
  find(commandId: string): Promise<readonly Reply[] | undefined>;
  /** Keeps `replies` unless replies are kept for the command already; returns the kept ones. */
  keep(commandId: string, replies: readonly Reply[]): Promise<readonly Reply[]>;
}

/** Answers being worked out, per store and command: a second delivery in this process waits for the first's. */
const answering = new WeakMap<KeptReplyStore, Map<string, Promise<readonly Reply[]>>>();

export interface AnswerOnceOptions {
  /**
   * The work has no effect beyond its replies (normalising a typed text, searching the index): it runs
   * without a look-up first, and the look-up rides in the keep, which answers the replies kept first
   * when there are any. One round trip to the store instead of two; a redelivery runs the work again
   * (costing only its time) and is still answered with the first kept replies. Work with an effect of
   * its own (a blob written, a page fetched, a paid model called) must not say so.
   */
  readonly pure?: boolean;
}

/**
 * Answers a command once: the kept replies if there are any (`work` does not run, unless `pure`),
 * else `work`'s replies, kept before they are returned (so before they are published). Deliveries of
 * the same command in this process while it is being answered share the one answer.
 */
export async function answerOnce(store: KeptReplyStore, commandId: string, work: () => Promise<readonly Reply[]>, options: AnswerOnceOptions = {}): Promise<readonly Reply[]> {
  if (options.pure !== true) {
    const kept = await store.find(commandId);
    if (kept !== undefined) return kept;
  }
  let running = answering.get(store);
  if (running === undefined) {
    running = new Map();
    answering.set(store, running);
  }
  const inFlight = running.get(commandId);
  if (inFlight !== undefined) return inFlight;
  const answer = (async () => store.keep(commandId, await work()))();
  running.set(commandId, answer);
  try {
    return await answer;
  } finally {
    running.delete(commandId);
  }
}

/** `answerOnce` for a handler that answers with exactly one reply. */
export async function answerOnceWith(store: KeptReplyStore, commandId: string, work: () => Promise<Reply>, options: AnswerOnceOptions = {}): Promise<Reply> {
  const [reply] = await answerOnce(store, commandId, async () => [await work()], options);
  if (reply === undefined) throw new Error(`command ${commandId} has no kept reply`);
  return reply;
}
