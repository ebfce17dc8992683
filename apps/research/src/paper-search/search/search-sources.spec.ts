import { describeLocalDrops, MAX_ABSTRACT_CHARS, searchStrategy } from '@openpaw/contracts';
import { ProviderError, type QueryExpressiveness, type ScholarlyQuery, type ScholarlySource, type ScholarlyWork } from '@openpaw/providers';
import { approvedExpression, searchSources } from './search-sources.js';

function work(source: ScholarlyWork['source'], n: number, title = `${source} paper ${n}`, language: string | null = null): ScholarlyWork {
  return { language, source, sourceId: `${source}-${n}`, title, authors: [], year: 2020, venue: null, abstract: 'x'.repeat(3_000), doi: null, arxivId: null, pmid: null, url: null, pdfUrl: null, citationCount: null };
}

/** A ScholarlySource (the port) answering from a function, recording its queries. */
function source(
  name: ScholarlyWork['source'],
  answer: (q: ScholarlyQuery, call: number) => Promise<ScholarlyWork[]>,
  expresses: QueryExpressiveness = { boolean: true, not: true, language: 'api' },
): ScholarlySource & { queries: ScholarlyQuery[] } {
  const queries: ScholarlyQuery[] = [];
  return {
    name,
    local: name === 'library',
    expresses,
    queries,
    search: async (q) => {
      queries.push(q);
      const works = await answer(q, queries.length);
      return { works, totalAvailable: works.length * 10, requests: 1 };
    },
  };
}

const strategy = searchStrategy.parse({
  queries: [
    { keywords: ['graph neural networks', 'molecules'], booleanQuery: '"graph neural networks" AND molecules' },
    { keywords: ['drug discovery'], booleanQuery: '"drug discovery"' },
  ],
  sources: ['library', 'openalex', 'crossref', 'serpapi_scholar'],
  filters: { yearFrom: 2019, yearTo: 2024 },
});
const clock = { now: () => Date.now() };

describe('searching the sources (skill 3)', () => {
  it('searches every source in parallel, reports each, and never fails for a failing, slow or missing source', async () => {
    const library = source('library', (_, call) => Promise.resolve([work('library', call)]));
    const openalex = source('openalex', (_, call) => (call === 1 ? Promise.resolve([work('openalex', 1), work('openalex', 2)]) : Promise.reject(new ProviderError('rate_limited', 'openalex', 'HTTP 429', { status: 429 }))));
    const crossref = source('crossref', (q) => new Promise((_, reject) => q.signal?.addEventListener('abort', () => reject(new ProviderError('aborted', 'crossref', 'aborted')))));
    const sources = new Map([
      ['library', library],
      ['openalex', openalex],
      ['crossref', crossref],
    ] as const);
    const { papers, sourceReports, cuts } = await searchSources(strategy, sources, { perSourceLimit: 5, deadlineMs: 200, clock });

    expect(library.queries.map((q) => [q.text, q.phrases, q.yearFrom, q.yearTo, q.limit])).toEqual([
      ['graph neural networks molecules', ['graph neural networks', 'molecules'], 2019, 2024, 5],
      ['drug discovery', ['drug discovery'], 2019, 2024, 5],
    ]);
    expect(sourceReports.map((r) => [r.source, r.status, r.count, r.error?.kind ?? null])).toEqual([
      ['library', 'ok', 2, null],
      ['openalex', 'failed', 2, 'rate_limited'],
      ['crossref', 'failed', 0, 'timeout'],
      ['serpapi_scholar', 'failed', 0, 'not_configured'],
    ]);
    expect(sourceReports[0]!.totalAvailable).toBe(20);
    // Interleaved across sources; abstracts cut to fit a message.
    expect(papers.map((p) => p.sourceIds[0]!.id)).toEqual(['library-1', 'openalex-1', 'library-2', 'openalex-2']);
    expect(papers[0]!.abstract!.length).toBeLessThanOrEqual(MAX_ABSTRACT_CHARS);
    expect(papers[0]!.abstract!.endsWith('…')).toBe(true);
    // ... and counted, never cut silently (4 abstracts of 3,000 characters; nothing left out).
    expect(cuts).toEqual({ papersLeftOut: 0, abstractsShortened: 4, authorListsShortened: 0 });
  });

  it('returns every paper the sources found (the reply stores them, uncapped) and counts the author lists cut', async () => {
    const many = (name: 'openalex' | 'crossref') =>
      source(name, (_, call) => Promise.resolve(Array.from({ length: 150 }, (_, i) => ({ ...work(name, call * 1_000 + i), abstract: null, authors: i === 0 ? Array.from({ length: 60 }, (_, k) => ({ name: `Author ${k}`, id: null })) : [] }))));
    const { papers, cuts } = await searchSources({ ...strategy, sources: ['openalex', 'crossref'] }, new Map([['openalex', many('openalex')], ['crossref', many('crossref')]] as const), { perSourceLimit: 150, deadlineMs: 2_000, clock });
    // 2 sources × 2 queries × 150 works, none left out.
    expect(papers).toHaveLength(600);
    expect(cuts).toEqual({ papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 4 });
    expect(papers.find((p) => p.sourceIds[0]!.id === 'openalex-1000')?.authors).toHaveLength(50);
  });

  it('reports every source failed when all fail, with no papers (the run goes on to checkpoint 2)', async () => {
    const down = source('openalex', () => Promise.reject(new ProviderError('server_error', 'openalex', 'HTTP 503', { status: 503 })));
    const { papers, sourceReports } = await searchSources(searchStrategy.parse({ ...strategy, sources: ['openalex'] }), new Map([['openalex', down]]), { perSourceLimit: 5, deadlineMs: 1_000, clock });
    expect(papers).toEqual([]);
    expect(sourceReports).toMatchObject([{ source: 'openalex', status: 'failed', error: { kind: 'server_error', message: 'openalex: HTTP 503' } }]);
  });

  it('sends each source the approved query, applies locally what a source cannot express, and says so per source', async () => {
    const approved = searchStrategy.parse({
      queries: [{ keywords: ['graph neural networks', 'molecules'], synonyms: [{ keyword: 'molecules', synonyms: ['compounds'] }], booleanQuery: '"graph neural networks" AND (molecules OR compounds) NOT survey' }],
      sources: ['openalex', 'crossref', 'arxiv'],
      filters: { language: 'en' },
      excludedTerms: ['review'],
    });
    const titles = ['Graph neural networks for molecules', 'A survey of graph neural networks for compounds', 'Graph neural networks for compounds: a review', 'Graph neural networks for social networks'];
    const answer = (name: ScholarlyWork['source']) => () => Promise.resolve(titles.map((t, i) => work(name, i, t, i === 0 ? 'en' : 'fr')));
    const openalex = source('openalex', answer('openalex'));
    const crossref = source('crossref', answer('crossref'), { boolean: false, not: false, language: 'records' });
    const arxiv = source('arxiv', answer('arxiv'), { boolean: true, not: true, language: 'none' });
    const sources = new Map<ScholarlyWork['source'], ScholarlySource>([
      ['openalex', openalex],
      ['crossref', crossref],
      ['arxiv', arxiv],
    ]);
    const { papers, sourceReports } = await searchSources(approved, sources, { perSourceLimit: 10, deadlineMs: 1_000, clock });

    // Every source receives the whole query: the strategy's excluded term is added as NOT.
    const sent = openalex.queries[0]!;
    expect(sent.expression).toEqual(approvedExpression(approved.queries[0]!, ['review']));
    expect(sent.text).toBe('graph neural networks molecules compounds');
    expect(sent.language).toBe('en');
    // Crossref cannot express AND/OR/NOT or language: only the first title passes locally.
    expect(papers.filter((p) => p.sources.includes('crossref')).map((p) => p.title)).toEqual([titles[0]]);
    // OpenAlex and arXiv expressed it themselves: their results are taken as answered.
    expect(papers.filter((p) => p.sources.includes('openalex'))).toHaveLength(4);
    expect(sourceReports.map((r) => [r.source, r.appliedLocally, r.notApplied])).toEqual([
      ['openalex', [], []],
      ['crossref', ['AND/OR (the source ranks by the words only)', 'NOT', 'language en (records without a language kept)'], []],
      ['arxiv', [], ['language en: arxiv records carry no language']],
    ]);
    // What the local filter removed is counted per source, never silently: 3 of Crossref's 4; none of the others'.
    expect(sourceReports.map((r) => [r.source, r.droppedLocally])).toEqual([
      ['openalex', { count: 0, withoutAbstract: 0 }],
      ['crossref', { count: 3, withoutAbstract: 0 }],
      ['arxiv', { count: 0, withoutAbstract: 0 }],
    ]);
  });

  it('counts, per source and across its queries, the results its local filter dropped and how many had no abstract to match', async () => {
    const approved = searchStrategy.parse({
      queries: [
        { keywords: ['graph neural networks', 'molecules'], booleanQuery: '"graph neural networks" AND molecules' },
        { keywords: ['drug discovery'], booleanQuery: '"drug discovery"' },
      ],
      sources: ['crossref', 'semantic_scholar', 'serpapi_scholar', 'openalex'],
      filters: {},
    });
    const answer = (name: ScholarlyWork['source']) => (_: ScholarlyQuery, call: number) =>
      Promise.resolve(
        call === 1
          ? // The first query: one match, one match on its abstract alone, one off-topic, and one whose topic is only in an abstract the source does not have.
            [
              work(name, 1, 'Graph neural networks for molecules'),
              { ...work(name, 2, 'Learning on graphs'), abstract: 'Graph neural networks predict properties of molecules.' },
              { ...work(name, 3, 'Social networks'), abstract: 'Graph neural networks for friendships.' },
              { ...work(name, 4, 'Message passing for chemistry'), abstract: null },
            ]
          : [work(name, 5, 'Drug discovery with transformers'), { ...work(name, 6, 'Protein folding'), abstract: null }],
      );
    // Semantic Scholar and SerpApi declare nothing they express (the port's default); Crossref neither AND/OR nor NOT.
    const sources = new Map<ScholarlyWork['source'], ScholarlySource>([
      ['crossref', source('crossref', answer('crossref'), { boolean: false, not: false, language: 'records' })],
      ['semantic_scholar', { ...source('semantic_scholar', answer('semantic_scholar')), expresses: undefined }],
      ['serpapi_scholar', { ...source('serpapi_scholar', answer('serpapi_scholar')), expresses: undefined }],
      ['openalex', source('openalex', answer('openalex'))],
    ]);
    const { sourceReports } = await searchSources(approved, sources, { perSourceLimit: 10, deadlineMs: 1_000, clock });
    expect(sourceReports.map((r) => [r.source, r.count, r.droppedLocally])).toEqual([
      ['crossref', 3, { count: 3, withoutAbstract: 2 }],
      ['semantic_scholar', 3, { count: 3, withoutAbstract: 2 }],
      ['serpapi_scholar', 3, { count: 3, withoutAbstract: 2 }],
      ['openalex', 6, { count: 0, withoutAbstract: 0 }],
    ]);
    expect(sourceReports.map(describeLocalDrops)).toEqual([
      'crossref: 3 results dropped by the filter applied locally (2 had no abstract: only the title was matched)',
      'semantic_scholar: 3 results dropped by the filter applied locally (2 had no abstract: only the title was matched)',
      'serpapi_scholar: 3 results dropped by the filter applied locally (2 had no abstract: only the title was matched)',
      null,
    ]);
  });

  it('falls back to the keywords with their synonyms when a hand-typed boolean query cannot be read', () => {
    const query = { keywords: ['a', 'b'], synonyms: [{ keyword: 'b', synonyms: ['c'] }], booleanQuery: '"a AND (b' };
    expect(approvedExpression(query, ['z'])).toEqual({
      kind: 'and',
      items: [
        { kind: 'term', text: 'a' },
        { kind: 'or', items: [{ kind: 'term', text: 'b' }, { kind: 'term', text: 'c' }] },
        { kind: 'not', item: { kind: 'term', text: 'z' } },
      ],
    });
  });
});
