import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { ARXIV_MIN_INTERVAL_MS, ArxivSource, searchQuery } from './arxiv-source.js';
import { parseSearchExpression } from './search-expression.js';

const stub = useScriptedStubServer();

function entry(id: string, title: string, extra = ''): string {
  return `
  <entry>
    <id>http://arxiv.org/abs/${id}</id>
    <updated>2017-12-06T03:30:32Z</updated>
    <published>2017-06-12T17:57:34Z</published>
    <title>${title}</title>
    <summary>  The dominant sequence transduction models are based on
      complex recurrent or convolutional neural networks.  </summary>
    <author><name>Ashish Vaswani</name></author>
    <author><name>Noam Shazeer</name><arxiv:affiliation>Google</arxiv:affiliation></author>
    ${extra}
    <link href="http://arxiv.org/abs/${id}" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/${id}" rel="related" type="application/pdf"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>`;
}

function feed(total: number, entries: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query</title>
  <id>http://arxiv.org/api/abc</id>
  <updated>2026-11-23T00:00:00-05:00</updated>
  <opensearch:totalResults>${total}</opensearch:totalResults>
  <opensearch:startIndex>0</opensearch:startIndex>
  <opensearch:itemsPerPage>2</opensearch:itemsPerPage>
  ${entries.join('\n')}
</feed>`;
}

const atom = (body: string) => () => ({ headers: { 'content-type': 'application/atom+xml; charset=utf-8' }, body });

describe('ArxivSource against the arXiv API Atom wire format', () => {
  it('builds the search query, pages with start/max_results and waits 3 s between requests', async () => {
    stub.script.push(atom(feed(3, [entry('1706.03762v5', 'Attention Is All\n You Need', '<arxiv:doi>10.48550/arXiv.1706.03762</arxiv:doi><arxiv:journal_ref>NeurIPS 2017</arxiv:journal_ref>'), entry('1810.04805v2', 'BERT')])));
    stub.script.push(atom(feed(3, [entry('hep-th/9901001v1', 'An old-style paper')])));
    const clock = fakeClock();
    const source = new ArxivSource({ baseUrl: `${stub.server.url}/api`, pageSize: 2, clock });
    const result = await source.search({ text: 'attention transformer', phrases: ['self attention', 'transformer'], yearFrom: 2017, yearTo: 2019, limit: 10 });

    const [first, second] = stub.server.requests;
    expect(first!.url.pathname).toBe('/api/query');
    expect(first!.url.searchParams.get('search_query')).toBe('all:"self attention" AND all:transformer AND submittedDate:[201701010000 TO 201912312359]');
    expect([first!.url.searchParams.get('start'), first!.url.searchParams.get('max_results')]).toEqual(['0', '2']);
    expect(second!.url.searchParams.get('start')).toBe('2');
    expect(clock.sleeps).toEqual([ARXIV_MIN_INTERVAL_MS]);
    expect(result.totalAvailable).toBe(3);
    expect(result.works.map((w) => w.arxivId)).toEqual(['1706.03762', '1810.04805', 'hep-th/9901001']);
    expect(result.works[0]).toEqual({
      source: 'arxiv',
      sourceId: '1706.03762',
      title: 'Attention Is All You Need',
      authors: [
        { name: 'Ashish Vaswani', id: null },
        { name: 'Noam Shazeer', id: null },
      ],
      year: 2017,
      venue: 'NeurIPS 2017',
      abstract: 'The dominant sequence transduction models are based on complex recurrent or convolutional neural networks.',
      doi: '10.48550/arxiv.1706.03762',
      arxivId: '1706.03762',
      pmid: null,
      url: 'http://arxiv.org/abs/1706.03762v5',
      pdfUrl: 'http://arxiv.org/pdf/1706.03762v5',
      citationCount: null,
      // Published (a journal reference), as what arXiv does not say.
      kind: null,
    });
    expect(result.works[1]).toMatchObject({ venue: 'arXiv', kind: 'preprint' });
  });

  it('reports the API error entry of a malformed query as bad_request, and non-Atom as malformed', async () => {
    const errorFeed = feed(1, [
      `<entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345</id><title>Error</title><summary>incorrect id format for 1234.12345</summary><updated>2026-11-23T00:00:00-05:00</updated></entry>`,
    ]);
    stub.script.push(() => ({ status: 400, headers: { 'content-type': 'application/atom+xml' }, body: errorFeed }));
    const source = new ArxivSource({ baseUrl: `${stub.server.url}/api`, clock: fakeClock() });
    await expect(source.search({ text: 'x', phrases: ['x'], limit: 5 })).rejects.toMatchObject({ kind: 'bad_request', provider: 'arxiv' });

    stub.script.push(atom(errorFeed));
    await expect(source.search({ text: 'x', phrases: ['x'], limit: 5 })).rejects.toMatchObject({ kind: 'bad_request', message: expect.stringContaining('incorrect id format') });

    stub.script.push(() => ({ body: { not: 'xml' } }));
    await expect(source.search({ text: 'x', phrases: ['x'], limit: 5 })).rejects.toMatchObject({ kind: 'malformed_response' });
  });

  it('retries a 503 after its Retry-After, which also holds back the limiter', async () => {
    stub.script.push(() => ({ status: 503, headers: { 'retry-after': '10' }, body: 'busy' }));
    stub.script.push(atom(feed(0, [])));
    const clock = fakeClock();
    const result = await new ArxivSource({ baseUrl: `${stub.server.url}/api`, clock }).search({ text: 'x', phrases: [], limit: 5 });
    expect(result.works).toEqual([]);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(10_000);
  });

  it('falls back to the text when a query has no phrases', () => {
    expect(searchQuery({ text: 'protein folding', phrases: [], limit: 1 })).toBe('all:"protein folding"');
    expect(searchQuery({ text: 'x', phrases: ['(a)'], yearTo: 2000, limit: 1 })).toBe('all:a AND submittedDate:[199101010000 TO 200012312359]');
  });

  it('sends the approved boolean query in arXiv query language: OR groups, AND, ANDNOT', async () => {
    stub.script.push(atom(feed(1, [entry('1704.01212v2', 'Neural Message Passing for Quantum Chemistry')])));
    const source = new ArxivSource({ baseUrl: stub.server.url, clock: fakeClock() });
    const expression = parseSearchExpression('("message passing" OR MPNN) AND molecule NOT survey NOT review');
    await source.search({ text: 'ignored', phrases: [], expression, yearFrom: 2017, yearTo: 2020, limit: 5 });

    expect(stub.server.requests[0]!.url.searchParams.get('search_query')).toBe(
      '(((all:"message passing" OR all:MPNN) AND all:molecule) ANDNOT (all:survey OR all:review)) AND submittedDate:[201701010000 TO 202012312359]',
    );
    expect(source.expresses.language).toBe('none');
  });
});
