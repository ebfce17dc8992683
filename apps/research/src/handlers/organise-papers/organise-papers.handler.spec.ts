import { InMemoryKeptReplyStore } from '@openpaw/testkit';
import { searchStrategy, type SkillProvenance, PapersOrganised } from '@openpaw/contracts';
import { createLlmFromEnv } from '@openpaw/providers';
import { RUN_ID, skillsFor, testSettings } from '../../testing/handler-fixtures.js';
import { PaperSets } from '../../paper-search/papers/paper-sets.js';
import { OrganisePapersHandler } from './organise-papers.handler.js';

const scoredBy: SkillProvenance = { model: 'local/lexical-overlap', local: true, method: 'LOCAL', costUsd: 0 };

describe('OrganisePapersHandler', () => {
  it('given no papers (every source failed), then an empty collection still comes back with the source reports', async () => {
    const clock = { now: () => Date.UTC(2026, 10, 23, 21, 0), sleep: () => Promise.resolve() };
    const reply = await new OrganisePapersHandler(skillsFor(createLlmFromEnv({})), new InMemoryKeptReplyStore(), testSettings, clock, new PaperSets(null)).execute({
      commandId: 'o1',
      data: {
        runId: RUN_ID,
        iteration: 1,
        query: 'q',
        strategy: searchStrategy.parse({ queries: [{ keywords: ['q'], booleanQuery: 'q' }], sources: ['openalex'], filters: {} }),
        papers: [],
        scoredBy,
        totalFound: 0,
        duplicatesMerged: 0,
        rejectedExcluded: 0,
        sourceReports: [{ source: 'openalex', status: 'failed', count: 0, totalAvailable: null, durationMs: 10, error: { kind: 'network', message: 'refused' } }],
      },
    });
    expect(reply).toMatchObject({
      message: PapersOrganised,
      data: { collection: { papers: [], facets: { themes: [] }, metadata: { createdAt: '2026-11-23T21:00:00.000Z', sourceReports: [{ status: 'failed' }], organisedBy: { local: true } } } },
    });
  });
});
