import { InMemoryKeptReplyStore } from '@openpaw/testkit';
import { searchStrategy, PaperSourcesSearched } from '@openpaw/contracts';
import { ProviderError, type ScholarlySource } from '@openpaw/providers';
import { RUN_ID, testSettings } from '../../testing/handler-fixtures.js';
import { InMemoryLibraryStore } from '../../testing/in-memory-stores.js';
import { PaperSets } from '../../paper-search/papers/paper-sets.js';
import { SearchPaperSourcesHandler } from './search-paper-sources.handler.js';

const down: ScholarlySource = { name: 'crossref', local: false, search: () => Promise.reject(new ProviderError('server_error', 'crossref', 'HTTP 503')) };

describe('SearchPaperSourcesHandler', () => {
  it("searches the user's own library and the remote sources; a failing source is reported", async () => {
    const library = new InMemoryLibraryStore();
    await library.upsert('u1', [{ citationKey: 'k', entryType: 'article', title: 'Protein folding in vivo', authors: [], year: 2020, venue: null, abstract: null, doi: '10.1/pf', arxivId: null, pmid: null, url: null, keywords: [] }]);
    const handler = new SearchPaperSourcesHandler([down], library, new InMemoryKeptReplyStore(), testSettings, { now: () => 0, sleep: () => Promise.resolve() }, new PaperSets(null));
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

  it('says an empty library is empty, with the import command, and a source that cannot be reached, each per source (no silent 0)', async () => {
    const unreachable: ScholarlySource = {
      name: 'arxiv',
      local: false,
      search: () => Promise.reject(new ProviderError('network', 'arxiv', 'arxiv could not be reached (https://export.arxiv.org could not be reached: ENOTFOUND); not searched, probed again in 60 s')),
    };
    const library = new InMemoryLibraryStore();
    const handler = new SearchPaperSourcesHandler([unreachable], library, new InMemoryKeptReplyStore(), testSettings, { now: () => 0, sleep: () => Promise.resolve() }, new PaperSets(null));
    const strategy = searchStrategy.parse({ queries: [{ keywords: ['protein folding'], booleanQuery: '"protein folding"' }], sources: ['library', 'arxiv', 'openalex'], filters: {} });
    const reply = await handler.execute({ commandId: 's3', data: { runId: RUN_ID, iteration: 1, userId: 'new-user', strategy } });
    expect(reply).toMatchObject({
      data: {
        papers: [],
        sourceReports: [
          { source: 'library', status: 'failed', error: { kind: 'not_configured', message: expect.stringContaining('your library is empty: import your references with `openpaw library <file.bib|file.ris>`') } },
          { source: 'arxiv', status: 'failed', error: { kind: 'network', message: expect.stringContaining('arxiv could not be reached') } },
          { source: 'openalex', status: 'failed', error: { kind: 'not_configured', message: expect.stringContaining('OPENPAW_SCHOLARLY_SOURCES') } },
        ],
      },
    });
    // A library with references that match nothing is an ordinary empty result.
    await library.upsert('new-user', [{ citationKey: 'k', entryType: 'article', title: 'Sea ice albedo', authors: [], year: 2020, venue: null, abstract: null, doi: null, arxivId: null, pmid: null, url: null, keywords: [] }]);
    const again = await handler.execute({ commandId: 's4', data: { runId: RUN_ID, iteration: 1, userId: 'new-user', strategy } });
    expect(again).toMatchObject({ data: { sourceReports: [{ source: 'library', status: 'ok', count: 0, error: null }, {}, {}] } });
  });
});
