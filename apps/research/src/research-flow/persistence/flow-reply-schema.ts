import { ResearchLegCompleted, ResearchLegFailed, ResearchSynthesisFailed, ResearchSynthesized, ResearchTitleGenerated } from '@openpaw/contracts';
import { z } from 'zod';
import type { FlowReply } from '../ports.js';

const reply = <K extends string, S extends z.ZodType>(kind: K, data: S) => z.object({ kind: z.literal(kind), id: z.string(), data });

/** A kept reply, validated when read back. */
export const flowReplySchema: z.ZodType<FlowReply> = z.discriminatedUnion('kind', [
  reply('leg_completed', ResearchLegCompleted.schema),
  reply('leg_failed', ResearchLegFailed.schema),
  reply('synthesized', ResearchSynthesized.schema),
  reply('synthesis_failed', ResearchSynthesisFailed.schema),
  reply('title', ResearchTitleGenerated.schema),
]);

/** The subject each reply kind is published on. */
export function flowReplySubject(r: FlowReply): string {
  switch (r.kind) {
    case 'leg_completed':
      return ResearchLegCompleted.subject;
    case 'leg_failed':
      return ResearchLegFailed.subject;
    case 'synthesized':
      return ResearchSynthesized.subject;
    case 'synthesis_failed':
      return ResearchSynthesisFailed.subject;
    case 'title':
      return ResearchTitleGenerated.subject;
  }
}
