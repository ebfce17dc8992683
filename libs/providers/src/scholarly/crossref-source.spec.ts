import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { CrossrefSource, parseInterval } from './crossref-source.js';
import { parseSearchExpression } from './search-expression.js';

const stub = useScriptedStubServer();

function crossrefItem(n: number, extra: Record<string, unknown> = {}) {
  return {
    DOI: `10.1038/NATURE${n}`,
    title: [`Deep learning ${n}`],
    author: [{ given: 'Yann', family: 'LeCun', sequence: 'first', affiliation: [] }, { name: 'The Consortium' }],
    issued: { 'date-parts': [[2015, 5, 27]] },
    'container-title': ['Nature'],
    'is-referenced-by-count': 50000 + n,
    abstract: '<jats:title>Abstract</jats:title><jats:p>Deep learning allows computational models &amp; more.</jats:p>',
    URL: `https://doi.org/10.1038/nature${n}`,
    type: 'journal-article',
    ...extra,
  };
}

const page = (items: unknown[], nextCursor: string, headers: Record<string, string> = {}) => () => ({
  headers: { 'x-rate-limit-limit': '50', 'x-rate-limit-interval': '1s', ...headers },
  body: { status: 'ok', 'message-type': 'work-list', 'message-version': '1.0.0', message: { 'total-results': 3, items, 'items-per-page': 2, query: { 'start-index': 0 }, 'next-cursor': nextCursor } },
});

describe('CrossrefSource against the Crossref REST API wire format', () => {
  it('searches with rows, cursor paging, date filters, the polite pool and the Plus token', async () => {
    stub.script.push(page([crossrefItem(1), crossrefItem(2)], 'DnF1ZXJ5VGhlbkZldGNo'));
    stub.script.push(page([crossrefItem(3)], 'DnF1ZXJ5VGhlbkZldGNo-2'));
    const source = new CrossrefSource({ baseUrl: stub.server.url, mailto: 'team@openpaw.dev', plusToken: 'plus-secret', rows: 2, clock: fakeClock() });
    const result = await source.search({ text: 'deep learning review', phrases: ['deep learning'], yearFrom: 2015, yearTo: 2016, limit: 10 });

    const [first, second] = stub.server.requests;
    expect(first!.url.pathname).toBe('/works');
    expect(Object.fromEntries(first!.url.searchParams)).toMatchObject({
      'query.bibliographic': 'deep learning review',
      rows: '2',
      cursor: '*',
      filter: 'from-pub-date:2015,until-pub-date:2016',
      mailto: 'team@openpaw.dev',
    });
    expect(first!.headers['crossref-plus-api-token']).toBe('Bearer plus-secret');
    expect(second!.url.searchParams.get('cursor')).toBe('DnF1ZXJ5VGhlbkZldGNo');
    // Fewer items than rows: the last page, even though Crossref still sends a cursor.
    expect(stub.server.requests).toHaveLength(2);
    expect(result.totalAvailable).toBe(3);
    expect(result.works[0]).toEqual({
      source: 'crossref',
      sourceId: '10.1038/nature1',
      title: 'Deep learning 1',
      authors: [
        { name: 'Yann LeCun', id: null },
        { name: 'The Consortium', id: null },
      ],
      year: 2015,
      venue: 'Nature',
      abstract: 'Deep learning allows computational models & more.',
      doi: '10.1038/nature1',
      arxivId: null,
      pmid: null,
      url: 'https://doi.org/10.1038/nature1',
      pdfUrl: null,
      citationCount: 50001,
      language: null,
      kind: 'journal_article',
    });
  });

  it('honours the rate limit it announces: x-rate-limit-limit per x-rate-limit-interval spaces the next requests', async () => {
    stub.script.push(page([crossrefItem(1), crossrefItem(2)], 'c2', { 'x-rate-limit-limit': '5', 'x-rate-limit-interval': '1s' }));
    stub.script.push(page([crossrefItem(3), crossrefItem(4)], 'c3', { 'x-rate-limit-limit': '5', 'x-rate-limit-interval': '1s' }));
    stub.script.push(page([], 'c4', { 'x-rate-limit-limit': '5', 'x-rate-limit-interval': '1s' }));
    const clock = fakeClock();
    const source = new CrossrefSource({ baseUrl: stub.server.url, rows: 2, clock });
    await source.search({ text: 'x', phrases: ['x'], limit: 10 });
    expect(source.minIntervalMs).toBe(200);
    expect(clock.sleeps).toEqual([200, 200]);
  });

  it('waits out a 429 Retry-After and retries; an error body is a typed failure', async () => {
    stub.script.push(() => ({ status: 429, headers: { 'retry-after': '2' }, body: 'Too Many Requests' }));
    stub.script.push(page([crossrefItem(1)], 'c'));
    const clock = fakeClock();
    const source = new CrossrefSource({ baseUrl: stub.server.url, rows: 5, clock });
    const result = await source.search({ text: 'x', phrases: ['x'], limit: 5 });
    expect(result.works).toHaveLength(1);
    expect(clock.sleeps).toContain(2_000);

    stub.script.push(() => ({ status: 400, body: { status: 'failed', 'message-type': 'validation-failure', message: [{ type: 'parameter-not-allowed' }] } }));
    await expect(source.search({ text: 'x', phrases: ['x'], limit: 5 })).rejects.toMatchObject({ kind: 'bad_request', provider: 'crossref' });
    stub.script.push(() => ({ body: { status: 'ok', message: { items: [{ title: ['no DOI'] }] } } }));
    await expect(source.search({ text: 'x', phrases: ['x'], limit: 5 })).rejects.toMatchObject({ kind: 'malformed_response' });
  });

  it('reads Crossref interval headers', () => {
    expect([parseInterval('1s'), parseInterval('60s'), parseInterval('1m'), parseInterval('250ms'), parseInterval('soon')]).toEqual([1_000, 60_000, 60_000, 250, null]);
  });

  it('sends the positive terms of the approved boolean query (Crossref has no operators) and reads each record language', async () => {
    stub.script.push(page([{ ...crossrefItem(1), language: 'de' }], 'end'));
    const source = new CrossrefSource({ baseUrl: stub.server.url, clock: fakeClock() });
    const expression = parseSearchExpression('("deep learning" OR "neural networks") AND review NOT survey');
    const result = await source.search({ text: 'ignored', phrases: [], expression, limit: 5 });

    expect(stub.server.requests[0]!.url.searchParams.get('query.bibliographic')).toBe('deep learning neural networks review');
    expect(stub.server.requests[0]!.url.searchParams.get('select')).toContain('language');
    expect(result.works[0]!.language).toBe('de');
    expect(source.expresses).toEqual({ boolean: false, not: false, language: 'records' });
  });
});
