import { freeText } from '@openpaw/contracts';
import { z } from 'zod';

/** One durable consumer (a service's lane, or an events consumer), as JetStream reports it. */
export const laneSchema = z.object({
  stream: z.string(),
  consumer: z.string(),
  filterSubject: z.string().nullable(),
  /** Messages in the stream for this consumer not delivered yet (its backlog). */
  pending: z.int().nonnegative(),
  /** Delivered and not acknowledged yet (in flight). */
  ackPending: z.int().nonnegative(),
  /** Messages delivered more than once. */
  redelivered: z.int().nonnegative(),
  /** Pull requests waiting (workers idle and asking). */
  waiting: z.int().nonnegative(),
  maxAckPending: z.int().nullable(),
  lastActive: z.string().nullable().describe('When a message was last delivered (ISO 8601).'),
});

export const lanesResponse = z.object({ lanes: z.array(laneSchema) });

/** A dead letter: where it came from, why, and its payload with the values redacted (shape and ids kept). */
export const deadLetterSchema = z.object({
  seq: z.int().positive(),
  subject: z.string(),
  receivedAt: z.string(),
  reason: z.string().nullable(),
  originalSubject: z.string().nullable(),
  originalStream: z.string().nullable(),
  consumer: z.string().nullable(),
  deliveries: z.int().nonnegative().nullable(),
  originalMsgId: z.string().nullable(),
  bytes: z.int().nonnegative(),
  payload: z.unknown().describe('The message, values redacted: strings become `[redacted: N chars]` except ids, types and times.'),
});

export const deadLettersResponse = z.object({
  deadLetters: z.array(deadLetterSchema),
  /** How many the dead-letter stream holds in all. */
  total: z.int().nonnegative(),
});

export const deadLettersQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('The newest this many (1..200, default 50).'),
});

export const deadLetterSeqParams = z.object({
  seq: z.coerce.number().int().positive().describe('The dead letter\'s sequence in the dead-letter stream (`seq` in the list).'),
});

export const redriveOneResponse = z.object({
  seq: z.int().positive(),
  /** The original subject it was republished to. */
  subject: z.string(),
  /** The JetStream message id it was republished with (a second redrive of the same dead letter is deduplicated). */
  msgId: z.string(),
});

/** Bulk redrive: at least one filter, so "redrive everything" is never one empty request away. */
export const redriveByFilterBody = z
  .object({
    subject: freeText().min(1).optional().describe('Original subject; NATS wildcards `*` and `>` allowed (e.g. `openpaw.cmd.solver.>`).'),
    reason: freeText().min(1).optional().describe('Case-insensitive substring of the dead-letter reason.'),
    dry_run: z.boolean().default(false).describe('Only count what the filter matches; redrive nothing.'),
    limit: z.int().min(1).max(1000).default(1000).describe('At most this many, oldest first (1..1000, default 1000).'),
  })
  .strict()
  .refine((body) => body.subject !== undefined || body.reason !== undefined, { message: 'give a subject or a reason filter (or both)', path: ['subject'] });

export const redriveByFilterResponse = z.object({
  dryRun: z.boolean(),
  /** Dead letters the filter matched. */
  matched: z.int().nonnegative(),
  /** Republished and removed from the dead-letter stream (0 on a dry run). */
  redriven: z.int().nonnegative(),
  /** The distinct original subjects matched. */
  subjects: z.array(z.string()),
});

/** One operator action from the audit log. */
export const auditEntrySchema = z.object({
  id: z.int().positive(),
  /** The user id (token subject) of the operator. */
  actor: z.string(),
  action: z.enum(['redrive_one', 'redrive_by_filter', 'visual_takedown']),
  /** What it acted on: the dead letter (`seq`, `subject`, `msgId`), the filter (`subject`, `reason`, `limit`) or the person taken down (`recognizer`, `celebrityId`, `name`, `reason`). */
  target: z.record(z.string(), z.unknown()),
  /** How many messages it moved (a takedown: the cache entries and pictures it removed). */
  affected: z.int().nonnegative(),
  occurredAt: z.string().describe('ISO 8601.'),
});

export const auditResponse = z.object({ entries: z.array(auditEntrySchema) });

export const auditQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('The newest this many (1..500, default 100).'),
});

export const inFlightResponse = z.object({
  byTier: z
    .array(z.object({ tier: z.string(), runs: z.int().nonnegative() }))
    .describe('Runs users started that have not ended, by the subscription tier they were admitted under (`not recorded` when the admission left none).'),
  byWorkflow: z.array(z.object({ workflowType: z.string(), runs: z.int().nonnegative() })).describe('Every run not ended, child and background runs too, by workflow type.'),
});
