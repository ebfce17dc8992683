import { ProviderError } from '../llm/errors.js';
import { recordingLogger } from '../test-support/recording-logger.js';
import { fakeClock, startStubServer, type StubServer } from '../test-support/stub-server.js';
import { createScholarlySourcesFromEnv, DEFAULT_SCHOLARLY_SOURCES } from './create-scholarly-sources-from-env.js';
import { ReachabilityCheckedSource } from './reachability-checked-source.js';

describe('createScholarlySourcesFromEnv', () => {
  it('enables the keyless sources by default (OpenAlex, arXiv, Crossref), each behind a reachability probe', () => {
    const logger = recordingLogger();
    const sources = createScholarlySourcesFromEnv({}, { logger });
    expect(DEFAULT_SCHOLARLY_SOURCES).toEqual(['openalex', 'arxiv', 'crossref']);
    expect(sources.map((s) => s.name)).toEqual(['openalex', 'arxiv', 'crossref']);
    expect(sources.every((s) => s instanceof ReachabilityCheckedSource && !s.local)).toBe(true);
    // No address is invented: without one the common pools are used, and the log says so.
    expect(logger.lines.some((l) => l.msg.includes('OPENPAW_SCHOLARLY_MAILTO is not set') && l.msg.includes('common pools'))).toBe(true);
    expect(createScholarlySourcesFromEnv({ OPENPAW_SCHOLARLY_SOURCES: ' ' }).map((s) => s.name)).toEqual(['openalex', 'arxiv', 'crossref']);
  });

  it('turns every remote source off with none (the library only), and refuses none mixed with sources', () => {
    const logger = recordingLogger();
    expect(createScholarlySourcesFromEnv({ OPENPAW_SCHOLARLY_SOURCES: 'none' }, { logger })).toEqual([]);
    expect(logger.lines.at(-1)!.msg).toContain('LOCAL library only');
    expect(() => createScholarlySourcesFromEnv({ OPENPAW_SCHOLARLY_SOURCES: 'none,arxiv' })).toThrow(/none.*cannot be combined/);
  });

  it('builds the requested sources; serpapi only with a key; unknown names are an error', () => {
    const logger = recordingLogger();
    const names = createScholarlySourcesFromEnv({ OPENPAW_SCHOLARLY_SOURCES: 'all', OPENPAW_SCHOLARLY_MAILTO: 'a@b.c' }, { logger }).map((s) => s.name);
    expect(names).toEqual(['openalex', 'arxiv', 'crossref', 'semantic_scholar']);
    expect(logger.lines.some((l) => l.msg.includes('SERPAPI_API_KEY is not set'))).toBe(true);
    expect(logger.lines.some((l) => l.msg.includes('common pools'))).toBe(false);
    expect(createScholarlySourcesFromEnv({ OPENPAW_SCHOLARLY_SOURCES: 'arxiv, serpapi_scholar', SERPAPI_API_KEY: 'k' }).map((s) => s.name)).toEqual(['arxiv', 'serpapi_scholar']);
    expect(() => createScholarlySourcesFromEnv({ OPENPAW_SCHOLARLY_SOURCES: 'openalex,pubmed' })).toThrow(/pubmed/);
  });
});

/** Each API's documented answer to a search, smallest form: one work. */
function wireAnswer(path: string): { status?: number; headers?: Record<string, string>; body: unknown } {
  if (path === '/works' || path === '/crossref/works') {
    return path === '/works'
      ? { body: { meta: { count: 1, per_page: 25, next_cursor: null }, results: [{ id: 'https://openalex.org/W1', display_name: 'Graph attention networks', publication_year: 2018, authorships: [], ids: {} }] } }
      : { body: { status: 'ok', 'message-type': 'work-list', message: { 'total-results': 1, items: [{ DOI: '10.1000/gat', title: ['Graph attention networks'], type: 'journal-article' }], 'next-cursor': null } } };
  }
  if (path === '/arxiv/query') {
    return {
      headers: { 'content-type': 'application/atom+xml' },
      body: `<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"><opensearch:totalResults>1</opensearch:totalResults><entry><id>http://arxiv.org/abs/1710.10903v3</id><published>2017-10-30T00:00:00Z</published><title>Graph attention networks</title><summary>Attention on graphs.</summary><author><name>Petar Velickovic</name></author></entry></feed>`,
    };
  }
  // The probe's GET of the API root: any answer means the host is there.
  return { status: 404, body: { error: 'not found' } };
}

describe('the default sources on the wire (local servers speaking each API; this machine has no internet)', () => {
  let api: StubServer;
  beforeAll(async () => {
    api = await startStubServer((request) => wireAnswer(request.url.pathname));
  });
  afterAll(async () => api.close());

  const defaults = (extra: Record<string, string> = {}) =>
    createScholarlySourcesFromEnv(
      { OPENPAW_OPENALEX_BASE_URL: api.url, OPENPAW_ARXIV_BASE_URL: `${api.url}/arxiv`, OPENPAW_CROSSREF_BASE_URL: `${api.url}/crossref`, OPENPAW_SCHOLARLY_MAILTO: 'ops@example.org', ...extra },
      { clock: fakeClock() },
    );
  const query = { text: 'graph attention', phrases: ['graph attention'], limit: 5 };

  it('probes each source once, then searches it with the operator mailto, and answers a repeated search from the cache', async () => {
    const before = api.requests.length;
    const sources = defaults();
    for (const source of sources) {
      const result = await source.search(query);
      expect({ source: source.name, titles: result.works.map((w) => w.title) }).toEqual({ source: source.name, titles: ['Graph attention networks'] });
      expect((await source.search(query)).requests).toBe(0);
    }
    const seen = api.requests.slice(before).map((r) => r.url.pathname);
    expect(seen).toEqual(['/', '/works', '/arxiv/', '/arxiv/query', '/crossref/', '/crossref/works']);
    const mailtos = api.requests.slice(before).filter((r) => r.url.pathname.endsWith('works')).map((r) => r.url.searchParams.get('mailto'));
    expect(mailtos).toEqual(['ops@example.org', 'ops@example.org']);
  });

  it('sends no contact address when the operator set none: never an invented one, in the query or a header', async () => {
    const before = api.requests.length;
    const env = { OPENPAW_OPENALEX_BASE_URL: api.url, OPENPAW_ARXIV_BASE_URL: `${api.url}/arxiv`, OPENPAW_CROSSREF_BASE_URL: `${api.url}/crossref` };
    for (const source of createScholarlySourcesFromEnv(env, { clock: fakeClock() })) expect((await source.search(query)).works).toHaveLength(1);
    const sent = api.requests.slice(before);
    expect(sent.filter((r) => r.url.pathname.endsWith('works')).map((r) => r.url.searchParams.has('mailto'))).toEqual([false, false]);
    expect(sent.filter((r) => `${r.url.search} ${JSON.stringify(r.headers)}`.includes('@'))).toEqual([]);
  });

  it('reports a source that cannot be reached as such (network), at once, without searching it', async () => {
    const closed = await startStubServer(() => ({ body: {} }));
    const deadUrl = closed.url;
    await closed.close();
    const [openalex] = defaults({ OPENPAW_SCHOLARLY_SOURCES: 'openalex', OPENPAW_OPENALEX_BASE_URL: deadUrl });
    const failure = await openalex!.search(query).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({ kind: 'network' });
    expect((failure as Error).message).toMatch(/openalex could not be reached .*not searched, probed again in \d+ s/);
  });
});
