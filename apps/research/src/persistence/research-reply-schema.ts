import {
  LibraryReferencesImported,
  PapersDeduplicated,
  PaperSearchIntentParsed,
  PaperSearchStepFailed,
  PaperSourcesSearched,
  PapersOrganised,
  PapersScored,
  SearchStrategyBuilt,
} from '@openpaw/contracts';
import { z } from 'zod';
import type { ResearchReply } from '../ports.js';

const reply = <K extends string, S extends z.ZodType>(kind: K, data: S) => z.object({ kind: z.literal(kind), id: z.string(), data });

/** A stored reply, validated when read back (the schema may have moved on since it was written). */
export const researchReplySchema: z.ZodType<ResearchReply> = z.discriminatedUnion('kind', [
  reply('intent_parsed', PaperSearchIntentParsed.schema),
  reply('strategy_built', SearchStrategyBuilt.schema),
  reply('sources_searched', PaperSourcesSearched.schema),
  reply('deduplicated', PapersDeduplicated.schema),
  reply('scored', PapersScored.schema),
  reply('organised', PapersOrganised.schema),
  reply('step_failed', PaperSearchStepFailed.schema),
  reply('library_imported', LibraryReferencesImported.schema),
]);

/** The subject each reply kind is published on. */
export function replySubject(r: ResearchReply): string {
  switch (r.kind) {
    case 'intent_parsed':
      return PaperSearchIntentParsed.subject;
    case 'strategy_built':
      return SearchStrategyBuilt.subject;
    case 'sources_searched':
      return PaperSourcesSearched.subject;
    case 'deduplicated':
      return PapersDeduplicated.subject;
    case 'scored':
      return PapersScored.subject;
    case 'organised':
      return PapersOrganised.subject;
    case 'step_failed':
      return PaperSearchStepFailed.subject;
    case 'library_imported':
      return LibraryReferencesImported.subject;
  }
}
