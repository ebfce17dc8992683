import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { parsePublicationSummary, SerpApiScholarSource } from './serpapi-scholar-source.js';

const stub = useScriptedStubServer();

function organic(position: number, extra: Record<string, unknown> = {}) {
  return {
    position,
    title: 'Attention is all you need',
    result_id: `5Gohgn6QFikJ${position}`,
    link: 'https://proceedings.neurips.cc/paper/2017/hash/3f5ee243547dee91fbd053c1c4a845aa-Abstract.html',
    snippet: 'The dominant sequence transduction models are based on complex recurrent or convolutional neural networks …',
    publication_info: {
      summary: 'A Vaswani, N Shazeer, N Parmar… - Advances in neural information processing systems, 2017 - proceedings.neurips.cc',
      authors: [{ name: 'A Vaswani', link: 'https://scholar.google.com/citations?user=oR9sCGYAAAAJ', author_id: 'oR9sCGYAAAAJ' }],
    },
    resources: [{ title: 'arxiv.org', file_format: 'PDF', link: 'https://arxiv.org/pdf/1706.03762' }],
    inline_links: { cited_by: { total: 150000, link: 'https://scholar.google.com/scholar?cites=1' } },
    ...extra,
  };
}

describe('SerpApiScholarSource against the SerpApi Google Scholar wire format', () => {
  it('searches with engine, key, year bounds and start paging; reads ids from links', async () => {
    stub.script.push(() => ({
      body: {
        search_metadata: { id: 'x', status: 'Success' },
        search_information: { total_results: 3, time_taken_displayed: 0.05 },
        organic_results: [organic(0), organic(1, { link: 'https://doi.org/10.1145/3065386', resources: [], publication_info: { summary: 'A Krizhevsky, I Sutskever, GE Hinton - Communications of the ACM, 2017 - dl.acm.org' } })],
        serpapi_pagination: { next: 'https://serpapi.com/search.json?start=2' },
      },
    }));
    stub.script.push(() => ({ body: { search_metadata: { status: 'Success' }, organic_results: [organic(2)] } }));
    const source = new SerpApiScholarSource({ baseUrl: stub.server.url, apiKey: 'serp-secret', pageSize: 2, clock: fakeClock() });
    const result = await source.search({ text: 'attention transformer', phrases: ['attention'], yearFrom: 2016, yearTo: 2018, limit: 10 });

    const [first, second] = stub.server.requests;
    expect(first!.url.pathname).toBe('/search.json');
    expect(Object.fromEntries(first!.url.searchParams)).toEqual({ engine: 'google_scholar', q: 'attention transformer', api_key: 'serp-secret', num: '2', start: '0', as_ylo: '2016', as_yhi: '2018' });
    expect(second!.url.searchParams.get('start')).toBe('2');
    expect(result.totalAvailable).toBe(3);
    expect(result.works[0]).toEqual({
      source: 'serpapi_scholar',
      sourceId: '5Gohgn6QFikJ0',
      title: 'Attention is all you need',
      authors: [{ name: 'A Vaswani', id: 'oR9sCGYAAAAJ' }],
      year: 2017,
      venue: 'Advances in neural information processing systems',
      // The snippet is a search-page excerpt, not the abstract.
      abstract: null,
      doi: null,
      arxivId: '1706.03762',
      pmid: null,
      url: 'https://proceedings.neurips.cc/paper/2017/hash/3f5ee243547dee91fbd053c1c4a845aa-Abstract.html',
      pdfUrl: 'https://arxiv.org/pdf/1706.03762',
      citationCount: 150000,
    });
    expect(result.works[1]).toMatchObject({ doi: '10.1145/3065386', authors: [{ name: 'A Krizhevsky' }, { name: 'I Sutskever' }, { name: 'GE Hinton' }], venue: 'Communications of the ACM' });
  });

  it("answers an error body as a typed failure without leaking the key; \"no results\" is an empty answer", async () => {
    stub.script.push(() => ({ status: 401, body: { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' } }));
    const source = new SerpApiScholarSource({ baseUrl: stub.server.url, apiKey: 'serp-secret', clock: fakeClock() });
    const error = await source.search({ text: 'x', phrases: ['x'], limit: 5 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'auth', provider: 'serpapi_scholar' });
    expect(String((error as Error).message)).not.toContain('serp-secret');

    stub.script.push(() => ({ body: { search_metadata: { status: 'Error' }, error: 'Your account has run out of searches.' } }));
    await expect(source.search({ text: 'x', phrases: ['x'], limit: 5 })).rejects.toMatchObject({ kind: 'bad_request' });

    stub.script.push(() => ({ body: { search_metadata: { status: 'Success' }, error: "Google hasn't returned any results for this query." } }));
    expect((await source.search({ text: 'zzqx', phrases: ['zzqx'], limit: 5 })).works).toEqual([]);
  });

  it('refuses to exist without an API key', () => {
    expect(() => new SerpApiScholarSource({ apiKey: ' ' })).toThrow(expect.objectContaining({ kind: 'no_credentials' }));
  });

  it('reads the publication summary', () => {
    expect(parsePublicationSummary('Y LeCun, Y Bengio, G Hinton - nature, 2015 - nature.com')).toEqual({ authors: ['Y LeCun', 'Y Bengio', 'G Hinton'], venue: 'nature', year: 2015 });
    expect(parsePublicationSummary('J Smith - 2019 - example.org')).toEqual({ authors: ['J Smith'], venue: null, year: 2019 });
    expect(parsePublicationSummary(undefined)).toEqual({ authors: [], venue: null, year: null });
  });
});
