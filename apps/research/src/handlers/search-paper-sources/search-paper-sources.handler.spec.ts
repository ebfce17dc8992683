import { InMemoryKeptReplyStore } from '@openpaw/testkit';
import { searchStrategy, PaperSourcesSearched } from '@openpaw/contracts';
import { ProviderError, type ScholarlySource } from '@openpaw/providers';
import { RUN_ID, testSettings } from '../../testing/handler-fixtures.js';
import { InMemoryLibraryStore } from '../../testing/in-memory-stores.js';
import { SearchPaperSourcesHandler } from './search-paper-sources.handler.js';

const down: ScholarlySource = { name: 'crossref', local: false, search: () => Promise.reject(new ProviderError('server_error', 'crossref', 'HTTP 503')) };

describe('SearchPaperSourcesHandler', () => {
  it("searches the user's own library and the remote sources; a failing source is reported", async () => {
    const library = new InMemoryLibraryStore();
    await library.upsert('u1', [{ citationKey: 'k', entryType: 'article', title: 'Protein folding in vivo', authors: [], year: 2020, venue: null, abstract: null, doi: '10.1/pf', arxivId: null, pmid: null, url: null, keywords: [] }]);
    const handler = new SearchPaperSourcesHandler([down], library, new InMemoryKeptReplyStore(), testSettings, { now: () => 0, sleep: () => Promise.resolve() });
    const strategy = searchStrategy.parse({ queries: [{ keywords: ['protein folding'], booleanQuery: '"protein folding"' }], sources: ['library', 'crossref'], filters: {} });
    const reply = await handler.execute({ commandId: 's1', data: { runId: RUN_ID, iteration: 1, userId: 'u1', strategy } });
    expect(reply).toMatchObject({
      message: PaperSourcesSearched,
      data: {
        papers: [{ id: 'doi:10.1/pf', sources: ['library'], url: 'https://doi.org/10.1/pf' }],
        sourceReports: [
          { source: 'library', status: 'ok', count: 1 },
          { source: 'crossref', status: 'failed', count: 0, error: { kind: 'server_error' } },
        ],
      },
    });
    const other = await handler.execute({ commandId: 's2', data: { runId: RUN_ID, iteration: 1, userId: 'u2', strategy } });
    expect(other).toMatchObject({ data: { papers: [] } });
  });
});
