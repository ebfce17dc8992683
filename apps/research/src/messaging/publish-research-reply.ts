import {
  type EnvelopeMeta,
  LibraryReferencesImported,
  PapersDeduplicated,
  PaperSearchIntentParsed,
  PaperSearchStepFailed,
  PaperSourcesSearched,
  PapersOrganised,
  PapersScored,
  SearchStrategyBuilt,
} from '@openpaw/contracts';
import type { MessagePublisher } from '@openpaw/messaging';
import type { ResearchReply } from '../ports.js';

/** Publishes a reply on its event's subject, with its own (deterministic) id. */
export async function publishResearchReply(publisher: MessagePublisher, reply: ResearchReply, meta: Omit<EnvelopeMeta, 'id'>): Promise<void> {
  const withId = { ...meta, id: reply.id };
  switch (reply.kind) {
    case 'intent_parsed':
      await publisher.publish(PaperSearchIntentParsed, reply.data, withId);
      return;
    case 'strategy_built':
      await publisher.publish(SearchStrategyBuilt, reply.data, withId);
      return;
    case 'sources_searched':
      await publisher.publish(PaperSourcesSearched, reply.data, withId);
      return;
    case 'deduplicated':
      await publisher.publish(PapersDeduplicated, reply.data, withId);
      return;
    case 'scored':
      await publisher.publish(PapersScored, reply.data, withId);
      return;
    case 'organised':
      await publisher.publish(PapersOrganised, reply.data, withId);
      return;
    case 'step_failed':
      await publisher.publish(PaperSearchStepFailed, reply.data, withId);
      return;
    case 'library_imported':
      await publisher.publish(LibraryReferencesImported, reply.data, withId);
      return;
  }
}
