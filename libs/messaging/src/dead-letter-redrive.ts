import type { JetStreamClient, JetStreamManager, StoredMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';
import { deadLetterSubjectOf, STREAMS } from '@openpaw/contracts';
import { DLQ_HEADERS } from './consumer.js';

/** Set on a redriven message: the dead-letter sequence it came from (for tracing an operator's redrive). */
export const REDRIVEN_FROM_HEADER = 'Openpaw-Redriven-From-Dlq-Seq';

/** Which dead letters a bulk redrive takes. Both given: both must match. */
export interface DeadLetterFilter {
  /** The original subject; NATS wildcards `*` (one token) and `>` (the rest) allowed. */
  readonly subject?: string;
  /** Case-insensitive substring of the dead-letter reason. */
  readonly reason?: string;
}

export type RedriveOutcome =
  | { readonly kind: 'redriven'; readonly seq: number; readonly subject: string; readonly msgId: string }
  | { readonly kind: 'not_found'; readonly seq: number }
  /** No original-subject header: it was not dead-lettered by `startConsumer`, so where it goes back to is unknown. */
  | { readonly kind: 'no_original_subject'; readonly seq: number }
  /**
   * Its original-subject header names a subject whose dead letters are not stored where it is: a
   * consumer dead-letters a message on `deadLetterSubjectOf` its own subject, so this one was written by
   * something else (every service may publish dead letters), and redriving it would publish whatever it
   * claims under the redriver's permissions. Never redriven.
   */
  | { readonly kind: 'not_its_dead_letter'; readonly seq: number; readonly storedOn: string; readonly originalSubject: string };

export interface BulkRedriveResult {
  /** Dead letters the filter matched (all of them redriven unless `dryRun`). */
  readonly matched: number;
  readonly redriven: number;
  readonly subjects: readonly string[];
}

const DLQ_HEADER_NAMES = new Set(Object.values(DLQ_HEADERS).map((name) => name.toLowerCase()));

/** NATS subject-pattern match: `*` one token, `>` one or more trailing tokens. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const have = subject.split('.');
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '>') return have.length > i;
    if (i >= have.length || (want[i] !== '*' && want[i] !== have[i])) return false;
  }
  return want.length === have.length;
}

export function deadLetterMatches(filter: DeadLetterFilter, originalSubject: string | undefined, reason: string | undefined): boolean {
  if (filter.subject !== undefined && (originalSubject === undefined || !subjectMatches(filter.subject, originalSubject))) return false;
  if (filter.reason !== undefined && !(reason ?? '').toLowerCase().includes(filter.reason.toLowerCase())) return false;
  return true;
}

/** The original message's own headers (the dead-letter bookkeeping dropped). */
function originalHeaders(stored: StoredMsg, seq: number): MsgHdrs {
  const restored = natsHeaders();
  for (const [key, values] of stored.header ?? []) {
    if (DLQ_HEADER_NAMES.has(key.toLowerCase()) || key.toLowerCase().startsWith('nats-')) continue;
    for (const value of values) restored.append(key, value);
  }
  restored.set(REDRIVEN_FROM_HEADER, String(seq));
  return restored;
}

/**
 * Republishes one dead letter to its original subject (original bytes and headers), then deletes it
 * from the dead-letter stream. The publish's message id is the original's plus the dead-letter
 * sequence: the original id alone would be swallowed by JetStream's duplicate window when the
 * message died within it, while this one still makes two concurrent redrives of the same dead letter
 * store it once. The envelope (and its id, which handlers' idempotency keys on) is unchanged.
 * Deleting after the publish means a crash in between leaves the dead letter to redrive again, which
 * dedup and idempotent handlers make harmless; the reverse order could lose it.
 */
export async function redriveDeadLetter(js: JetStreamClient, jsm: JetStreamManager, seq: number): Promise<RedriveOutcome> {
  const stored = await jsm.streams.getMessage(STREAMS.deadLetters.name, { seq }).catch(() => null);
  if (stored === null) return { kind: 'not_found', seq };
  const subject = stored.header?.get(DLQ_HEADERS.originalSubject);
  if (subject === undefined || subject === '') return { kind: 'no_original_subject', seq };
  if (stored.subject !== deadLetterSubjectOf(subject)) return { kind: 'not_its_dead_letter', seq, storedOn: stored.subject, originalSubject: subject };
  const originalMsgId = stored.header?.get(DLQ_HEADERS.originalMsgId);
  const msgId = `${originalMsgId === undefined || originalMsgId === '' ? `dlq-${seq}` : originalMsgId}:redrive:${seq}`;
  await js.publish(subject, stored.data, { msgID: msgId, headers: originalHeaders(stored, seq) });
  // false: another redrive deleted it first (its publish was deduplicated with ours).
  await jsm.streams.deleteMessage(STREAMS.deadLetters.name, seq, false).catch(() => false);
  return { kind: 'redriven', seq, subject, msgId };
}

/** The dead letters `filter` matches, oldest first, at most `limit`. */
export async function matchingDeadLetters(jsm: JetStreamManager, filter: DeadLetterFilter, limit: number): Promise<{ seq: number; subject: string }[]> {
  const { state } = await jsm.streams.info(STREAMS.deadLetters.name);
  const found: { seq: number; subject: string }[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0 && found.length < limit; seq++) {
    const stored = await jsm.streams.getMessage(STREAMS.deadLetters.name, { seq }).catch(() => null);
    if (stored === null) continue; // deleted (an earlier redrive) or purged
    const originalSubject = stored.header?.get(DLQ_HEADERS.originalSubject);
    if (deadLetterMatches(filter, originalSubject, stored.header?.get(DLQ_HEADERS.reason))) found.push({ seq, subject: originalSubject ?? stored.subject });
  }
  return found;
}

/** Redrives every dead letter `filter` matches (up to `limit`), or with `dryRun` only counts them. */
export async function redriveDeadLetters(
  js: JetStreamClient,
  jsm: JetStreamManager,
  filter: DeadLetterFilter,
  options: { readonly dryRun: boolean; readonly limit: number },
): Promise<BulkRedriveResult> {
  const matches = await matchingDeadLetters(jsm, filter, options.limit);
  const subjects = [...new Set(matches.map((match) => match.subject))].sort();
  if (options.dryRun) return { matched: matches.length, redriven: 0, subjects };
  let redriven = 0;
  for (const { seq } of matches) {
    const outcome = await redriveDeadLetter(js, jsm, seq);
    if (outcome.kind === 'redriven') redriven++;
  }
  return { matched: matches.length, redriven, subjects };
}
