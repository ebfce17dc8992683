import { ProviderError } from '../llm/errors.js';
import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { OpenAlexSource, rebuildAbstract } from './openalex-source.js';
import { parseSearchExpression } from './search-expression.js';

const stub = useScriptedStubServer();

function openAlexWork(n: number, extra: Record<string, unknown> = {}) {
  return {
    id: `https://openalex.org/W10000${n}`,
    doi: `https://doi.org/10.1000/PAPER.${n}`,
    display_name: `Paper number ${n}`,
    publication_year: 2020 + n,
    authorships: [{ author: { id: 'https://openalex.org/A1', display_name: 'Ada Lovelace' } }],
    type: 'article',
    primary_location: { landing_page_url: `https://example.org/${n}`, source: { display_name: 'Journal of Tests', type: 'journal' } },
    best_oa_location: null,
    abstract_inverted_index: { attention: [1], Self: [0], works: [2] },
    cited_by_count: 7,
    ids: { openalex: `https://openalex.org/W10000${n}`, pmid: 'https://pubmed.ncbi.nlm.nih.gov/3123456' },
    ...extra,
  };
}

describe('OpenAlexSource against the OpenAlex works API wire format', () => {
  it('searches with the polite pool, api key, year filter and cursor paging until the limit', async () => {
    stub.script.push(() => ({ body: { meta: { count: 1234, per_page: 2, next_cursor: 'CURSOR-2' }, results: [openAlexWork(1), openAlexWork(2)] } }));
    stub.script.push(() => ({ body: { meta: { count: 1234, per_page: 2, next_cursor: 'CURSOR-3' }, results: [openAlexWork(3), openAlexWork(4)] } }));
    const source = new OpenAlexSource({ baseUrl: stub.server.url, mailto: 'team@openpaw.dev', apiKey: 'oa-key', perPage: 2, clock: fakeClock() });
    const result = await source.search({ text: 'self attention', phrases: ['self attention'], yearFrom: 2019, yearTo: 2024, limit: 3 });

    const [first, second] = stub.server.requests;
    expect(first!.url.pathname).toBe('/works');
    expect(Object.fromEntries(first!.url.searchParams)).toMatchObject({
      search: 'self attention',
      filter: 'publication_year:2019-2024',
      per_page: '2',
      cursor: '*',
      mailto: 'team@openpaw.dev',
      api_key: 'oa-key',
    });
    expect(second!.url.searchParams.get('cursor')).toBe('CURSOR-2');
    expect(stub.server.requests).toHaveLength(2);
    expect(result.totalAvailable).toBe(1234);
    expect(result.works.map((w) => w.sourceId)).toEqual(['W100001', 'W100002', 'W100003']);
    expect(result.works[0]).toEqual({
      source: 'openalex',
      sourceId: 'W100001',
      title: 'Paper number 1',
      authors: [{ name: 'Ada Lovelace', id: 'A1' }],
      year: 2021,
      venue: 'Journal of Tests',
      abstract: 'Self attention works',
      doi: '10.1000/paper.1',
      arxivId: null,
      pmid: '3123456',
      url: 'https://example.org/1',
      pdfUrl: null,
      citationCount: 7,
      language: null,
      kind: 'journal_article',
    });
  });

  it('reads what kind of record a work is: a conference paper by its host, a chapter, a thesis', async () => {
    const at = (type: string, sourceType: string | null) => ({ type, primary_location: { landing_page_url: null, source: { display_name: 'Venue', type: sourceType } } });
    stub.script.push(() => ({
      body: { meta: { count: 4, next_cursor: null }, results: [openAlexWork(1, at('article', 'conference')), openAlexWork(2, at('book-chapter', 'book series')), openAlexWork(3, at('dissertation', null)), openAlexWork(4, at('article', 'repository'))] },
    }));
    const result = await new OpenAlexSource({ baseUrl: stub.server.url, clock: fakeClock() }).search({ text: 'x', phrases: ['x'], limit: 4 });
    expect(result.works.map((w) => w.kind)).toEqual(['conference_paper', 'book_chapter', 'thesis', 'preprint']);
    expect(stub.server.requests[0]!.url.searchParams.get('select')).toContain('type');
  });

  it('stops when the cursor runs out, and reads arXiv ids from landing pages', async () => {
    const arxiv = openAlexWork(5, { doi: null, primary_location: { landing_page_url: 'http://arxiv.org/abs/1706.03762v5', source: { display_name: 'arXiv' } } });
    stub.script.push(() => ({ body: { meta: { count: 1, next_cursor: null }, results: [arxiv] } }));
    const result = await new OpenAlexSource({ baseUrl: stub.server.url, clock: fakeClock() }).search({ text: 'attention', phrases: ['attention'], yearFrom: 2017, limit: 50 });
    expect(stub.server.requests[0]!.url.searchParams.get('filter')).toBe('publication_year:>2016');
    expect(stub.server.requests[0]!.url.searchParams.has('mailto')).toBe(false);
    expect(result.works.map((w) => [w.arxivId, w.doi])).toEqual([['1706.03762', null]]);
  });

  it('reports 403 (its rate limit) as rate_limited after retrying, and an unexpected shape as malformed', async () => {
    stub.script.push(() => ({ status: 403, body: { error: 'Rate limit exceeded' } }));
    stub.script.push(() => ({ status: 403, body: { error: 'Rate limit exceeded' } }));
    const clock = fakeClock();
    const source = new OpenAlexSource({ baseUrl: stub.server.url, clock, random: () => 0 });
    await expect(source.search({ text: 'x', phrases: ['x'], limit: 5 })).rejects.toMatchObject({ name: 'ProviderError', kind: 'rate_limited', provider: 'openalex', status: 403 });
    expect(stub.server.requests).toHaveLength(2);

    stub.script.push(() => ({ body: { results: 'not a list' } }));
    await expect(source.search({ text: 'x', phrases: ['x'], limit: 5 })).rejects.toMatchObject({ kind: 'malformed_response' });
  });

  it('times out a hanging server as a typed timeout, with the api key redacted from errors', async () => {
    stub.script.push(() => ({ hang: true }));
    const source = new OpenAlexSource({ baseUrl: stub.server.url, apiKey: 'secret-openalex-key', timeoutMs: 100, retry: { maxAttempts: 1 } });
    const error = await source.search({ text: 'x', phrases: ['x'], limit: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'timeout' });
    stub.script.push(() => ({ status: 400, body: 'bad request for api_key=secret-openalex-key' }));
    // A source with room to answer: at 100 ms a loaded machine turned this 400 into a timeout (seen at load 14 and 25).
    const patient = new OpenAlexSource({ baseUrl: stub.server.url, apiKey: 'secret-openalex-key', timeoutMs: 10_000, retry: { maxAttempts: 1 } });
    const bad = await patient.search({ text: 'x', phrases: ['x'], limit: 5 }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ kind: 'bad_request' });
    expect((bad as Error).message).not.toContain('secret-openalex-key');
  });

  it('rebuilds abstracts from the inverted index', () => {
    expect(rebuildAbstract({ the: [0, 3], cat: [1], saw: [2], dog: [4] })).toBe('the cat saw the dog');
    expect(rebuildAbstract(null)).toBeNull();
  });

  it('sends the approved boolean query in OpenAlex syntax and the language as a filter', async () => {
    stub.script.push(() => ({ body: { meta: { count: 1, next_cursor: null }, results: [openAlexWork(1, { language: 'en' })] } }));
    const source = new OpenAlexSource({ baseUrl: stub.server.url, clock: fakeClock() });
    const expression = parseSearchExpression('("graph neural network" OR GNN) AND molecule NOT survey');
    const result = await source.search({ text: 'ignored', phrases: [], expression, yearFrom: 2020, language: 'en', limit: 5 });

    const params = stub.server.requests[0]!.url.searchParams;
    expect(params.get('search')).toBe('(("graph neural network" OR GNN) AND molecule) NOT survey');
    expect(params.get('filter')).toBe('publication_year:>2019,language:en');
    expect(result.works[0]!.language).toBe('en');
  });
});
