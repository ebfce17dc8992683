import { createEnvelope, type Envelope, RetrievalHit, RetrievalHitV1, SearchSolutions } from '@openpaw/contracts';
import { type MessagePublisher, replyTo } from '@openpaw/messaging';
import type { IndexDocumentHandler } from '../handlers/index-document/index-document.handler.js';
import type { SearchSolutionsHandler } from '../handlers/search-solutions/search-solutions.handler.js';
import type { WithdrawProblemHandler } from '../handlers/withdraw-problem/withdraw-problem.handler.js';
import { RetrievalCommandsConsumer } from './retrieval-commands.consumer.js';

const RUN_ID = '7b0b4c1e-1f6a-4d53-9c8e-2a1d3f4b5c6d';

function searchCommand(): Envelope<never> {
  return createEnvelope(
    SearchSolutions,
    { runId: RUN_ID, signature: { normalizedText: 'x + 1 = 2', textSha256: 'a'.repeat(64), phashVersion: 'v1', topicTags: { subject: 'algebra', keywords: [] } }, threshold: 0.9 },
    { source: '/openpaw/coordinator', correlationId: RUN_ID, userId: 'u1' },
  ) as Envelope<never>;
}

/** The consumer answering one search with a text-exact hit (a method v1 can name), publishing into `published`. */
function consumerWith(publishRepliesV1: boolean, published: Envelope[]): RetrievalCommandsConsumer {
  const searchSolutions = {
    execute: ({ commandId }: { commandId: string }) =>
      Promise.resolve(
        replyTo(commandId, RetrievalHit, {
          runId: RUN_ID,
          commandId,
          candidate: { assetVersionId: 'av-1', problemId: 'p-1', confidence: 1, method: 'text_exact' },
          trace: [],
        }),
      ),
  } as unknown as SearchSolutionsHandler;
  const publisher: MessagePublisher = {
    publish: () => Promise.reject(new Error('not used')),
    publishEnvelope: (envelope) => {
      published.push(envelope);
      return Promise.resolve();
    },
  };
  return new RetrievalCommandsConsumer(searchSolutions, {} as IndexDocumentHandler, {} as WithdrawProblemHandler, publisher, { publishRepliesV1 });
}

describe('RetrievalCommandsConsumer', () => {
  it('answers a search with its v2 reply alone by default', async () => {
    const published: Envelope[] = [];
    await consumerWith(false, published).onSearchSolutions(searchCommand());
    expect(published.map((e) => e.type)).toEqual([RetrievalHit.subject]);
  });

  it('adds the deprecated v1 after it while OPENPAW_RETRIEVAL_REPLIES_V1 is on', async () => {
    const published: Envelope[] = [];
    await consumerWith(true, published).onSearchSolutions(searchCommand());
    expect(published.map((e) => e.type)).toEqual([RetrievalHit.subject, RetrievalHitV1.subject]);
  });
});
