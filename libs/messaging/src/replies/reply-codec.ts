import { definitionForSubject } from '@openpaw/contracts';
import { z } from 'zod';
import type { Reply } from './reply.js';

/** How kept replies are stored (JSON), in publishing order: each one's subject, id and data. */
const keptReplies = z.array(z.object({ subject: z.string(), id: z.string(), data: z.unknown() }));
export type KeptForm = z.infer<typeof keptReplies>;

/**
 * Replies in their kept form. Each is validated first: a reply that could never be published must
 * not be kept for ever.
 */
export function keptForm(replies: readonly Reply[]): KeptForm {
  return replies.map((reply) => ({ subject: reply.message.subject, id: reply.id, data: (reply.message.schema as z.ZodType).parse(reply.data) }));
}

/** Kept replies as they are published again: each one's definition found by subject, its data validated by today's schema. */
export function restoredReplies(kept: unknown): Reply[] {
  return keptReplies.parse(kept).map((stored) => {
    const message = definitionForSubject(stored.subject);
    if (message === undefined) throw new Error(`kept reply ${stored.id} has unknown subject ${stored.subject}`);
    return { message, id: stored.id, data: (message.schema as z.ZodType).parse(stored.data) };
  });
}
