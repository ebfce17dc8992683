import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { SemanticScholarSource } from './semantic-scholar-source.js';

const stub = useScriptedStubServer();

function s2Paper(n: number, externalIds: Record<string, unknown> = { DOI: `10.18653/V1/N19-${n}`, ArXiv: `1810.0480${n}`, PubMed: null, CorpusId: 52967399 }) {
  return {
    paperId: `df2b0e26d0599ce3e70df8a9da02e51594e0e99${n}`,
    externalIds,
    url: `https://www.semanticscholar.org/paper/df2b0e26d0599ce3e70df8a9da02e51594e0e99${n}`,
    title: `BERT: Pre-training of Deep Bidirectional Transformers ${n}`,
    abstract: 'We introduce a new language representation model called BERT.',
    venue: 'North American Chapter of the Association for Computational Linguistics',
    year: 2019,
    citationCount: 90000,
    openAccessPdf: { url: 'https://aclanthology.org/N19-1423.pdf', status: 'HYBRID' },
    authors: [{ authorId: '39172707', name: 'Jacob Devlin' }],
  };
}

describe('SemanticScholarSource against the Graph API paper search wire format', () => {
  it('searches with fields, year range, offset paging and the optional API key', async () => {
    stub.script.push(() => ({ body: { total: 3, offset: 0, next: 2, data: [s2Paper(1), s2Paper(2)] } }));
    stub.script.push(() => ({ body: { total: 3, offset: 2, data: [s2Paper(3, { PubMed: '31234567' })] } }));
    const clock = fakeClock();
    const source = new SemanticScholarSource({ baseUrl: `${stub.server.url}/graph/v1`, apiKey: 's2-key', pageSize: 2, clock });
    const result = await source.search({ text: 'bidirectional transformers', phrases: ['bidirectional transformers'], yearFrom: 2018, yearTo: null, limit: 5 });

    const [first, second] = stub.server.requests;
    expect(first!.url.pathname).toBe('/graph/v1/paper/search');
    expect(first!.headers['x-api-key']).toBe('s2-key');
    expect(Object.fromEntries(first!.url.searchParams)).toMatchObject({ query: 'bidirectional transformers', offset: '0', limit: '2', year: '2018-' });
    expect(first!.url.searchParams.get('fields')).toContain('externalIds');
    expect(second!.url.searchParams.get('offset')).toBe('2');
    expect(clock.sleeps).toEqual([1_000]);
    expect(result.totalAvailable).toBe(3);
    expect(result.works[0]).toEqual({
      source: 'semantic_scholar',
      sourceId: 'df2b0e26d0599ce3e70df8a9da02e51594e0e991',
      title: 'BERT: Pre-training of Deep Bidirectional Transformers 1',
      authors: [{ name: 'Jacob Devlin', id: '39172707' }],
      year: 2019,
      venue: 'North American Chapter of the Association for Computational Linguistics',
      abstract: 'We introduce a new language representation model called BERT.',
      doi: '10.18653/v1/n19-1',
      arxivId: '1810.04801',
      pmid: null,
      url: 'https://www.semanticscholar.org/paper/df2b0e26d0599ce3e70df8a9da02e51594e0e991',
      pdfUrl: 'https://aclanthology.org/N19-1423.pdf',
      citationCount: 90000,
    });
    expect(result.works[2]!.pmid).toBe('31234567');
  });

  it('works without a key (no x-api-key header) and reports a 429 without key as rate_limited', async () => {
    stub.script.push(() => ({ status: 429, body: { message: 'Too Many Requests. Please wait and try again or apply for a key for higher rate limits.', code: '429' } }));
    stub.script.push(() => ({ status: 429, body: { message: 'Too Many Requests.', code: '429' } }));
    const source = new SemanticScholarSource({ baseUrl: `${stub.server.url}/graph/v1`, clock: fakeClock(), random: () => 0 });
    await expect(source.search({ text: 'x', phrases: ['x'], limit: 5 })).rejects.toMatchObject({ kind: 'rate_limited', provider: 'semantic_scholar' });
    expect(stub.server.requests[0]!.headers['x-api-key']).toBeUndefined();
    expect(stub.server.requests[0]!.url.searchParams.has('year')).toBe(false);
  });

  it('an empty search answers no works; a body without data list shape is malformed', async () => {
    stub.script.push(() => ({ body: { total: 0, offset: 0 } }));
    const source = new SemanticScholarSource({ baseUrl: `${stub.server.url}/graph/v1`, clock: fakeClock() });
    expect(await source.search({ text: 'x', phrases: ['x'], limit: 5 })).toEqual({ works: [], totalAvailable: 0, requests: 1 });
    stub.script.push(() => ({ body: { data: [{ title: 'no id' }] } }));
    await expect(source.search({ text: 'x', phrases: ['x'], limit: 5 })).rejects.toMatchObject({ kind: 'malformed_response' });
  });

  it('repairs text PostgreSQL cannot store: a NUL (escaped in the JSON) is dropped, a lone surrogate becomes U+FFFD', async () => {
    stub.script.push(() => ({ body: { total: 1, offset: 0, data: [{ ...s2Paper(1), title: 'BERT\u0000 revisited \ud83d', abstract: 'A\u0000B' }] } }));
    const source = new SemanticScholarSource({ baseUrl: `${stub.server.url}/graph/v1`, clock: fakeClock() });
    const [work] = (await source.search({ text: 'x', phrases: ['x'], limit: 1 })).works;
    expect(work).toMatchObject({ title: 'BERT revisited \uFFFD', abstract: 'AB' });
  });
});
