import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { PaperCollection, PaperSearchView } from '@openpaw/contracts';
import { LocalFsBlobStore } from '@openpaw/providers/blob';
import { freshDatabase, type NatsServerHandle, privateNatsServer, type RunningPlatform, startPlatformProcesses } from '@openpaw/testing';
import { GatewayClient } from './e2e-client.js';
import { cliEnvironment, runCli } from './testing/openpaw-cli.js';
import { sseEvents } from './sse-reader.js';

const root = join(import.meta.dirname, '../../../..');
const QUERY = 'graph neural networks with attention since 2016';

interface WireServer {
  readonly server: Server;
  readonly url: string;
  readonly requests: URL[];
}

function listen(handler: (url: URL) => { status: number; body: unknown }): Promise<WireServer> {
  const requests: URL[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(url);
    const answer = handler(url);
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests })));
}

/** OpenAlex's `GET /works` wire format: one page of three works, no further cursor. */
function openAlexWorks(): { status: number; body: unknown } {
  const work = (id: string, title: string, year: number, doi: string | null, words: string[]) => ({
    id: `https://openalex.org/${id}`,
    doi: doi === null ? null : `https://doi.org/${doi}`,
    display_name: title,
    publication_year: year,
    authorships: [{ author: { id: 'https://openalex.org/A1', display_name: 'Petar Veličković' } }],
    primary_location: { source: { display_name: 'ICLR' } },
    abstract_inverted_index: Object.fromEntries(words.map((w, i) => [w, [i]])),
    cited_by_count: 100,
    ids: {},
  });
  return {
    status: 200,
    body: {
      meta: { count: 3, per_page: 25, next_cursor: null },
      results: [
        work('W1', 'Graph Attention Networks', 2018, '10.48550/arxiv.1710.10903', ['graph', 'attention', 'networks', 'neural']),
        work('W2', 'Attention-based graph neural network for semi-supervised learning', 2018, '10.1000/agnn', ['attention', 'graph', 'neural', 'networks']),
        work('W3', 'How powerful are graph neural networks?', 2019, '10.1000/gin', ['graph', 'neural', 'networks', 'expressive']),
      ],
    },
  };
}

type Resource = PaperSearchView & { runId: string; terminal: boolean };

describe('paper search through the gateway: two checkpoints, one source failing, coordinator restarts while waiting', () => {
  let nats: NatsServerHandle;
  let platform: RunningPlatform;
  let openalex: WireServer;
  let failing: WireServer;
  let client: GatewayClient;

  beforeAll(async () => {
    nats = await privateNatsServer();
    openalex = await listen(openAlexWorks);
    // Semantic Scholar's Graph API, down: every request answers 503.
    failing = await listen(() => ({ status: 503, body: { message: 'Service Unavailable' } }));
    platform = await startPlatformProcesses({
      root,
      natsUrl: nats.url,
      databaseUrl: await freshDatabase('e2e_paper_search'),
      services: ['coordinator', 'research', 'gateway'],
      serviceEnv: {
        research: {
          OPENPAW_SCHOLARLY_SOURCES: 'openalex,semantic_scholar',
          OPENPAW_OPENALEX_BASE_URL: openalex.url,
          OPENPAW_SEMANTIC_SCHOLAR_BASE_URL: `${failing.url}/graph/v1`,
          OPENPAW_SCHOLARLY_MAILTO: 'team@openpaw.dev',
          OPENPAW_SCHOLARLY_TIMEOUT_MS: '2000',
        },
        coordinator: { OPENPAW_PAPER_SEARCH_JSON: JSON.stringify({ defaultSources: ['openalex', 'semantic_scholar'] }) },
      },
    });
    client = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'e2e-researcher');
  });

  afterAll(async () => {
    await platform?.stop();
    await new Promise((resolve) => openalex?.server.close(resolve));
    await new Promise((resolve) => failing?.server.close(resolve));
    await nats?.dispose();
  });

  async function search(runId: string): Promise<Resource> {
    const response = await client.request(`/paper-searches/${runId}`);
    expect(response.status).toBe(200);
    return (await response.json()) as Resource;
  }

  async function until(runId: string, what: string, done: (r: Resource) => boolean, timeoutMs = 60_000): Promise<Resource> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // Just started, the run may be in the coordinator's answer before it is in the gateway's projection (404 until then).
      const response = await client.request(`/paper-searches/${runId}`);
      if (response.status === 404 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      expect(response.status).toBe(200);
      const current = (await response.json()) as Resource;
      if (done(current)) return current;
      if (current.status === 'failed' || Date.now() > deadline) throw new Error(`paper search ${runId} not ${what}: ${JSON.stringify({ state: current.state, error: current.error })}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const atCheckpoint = (kind: string, iteration: number) => (r: Resource) => r.checkpoint?.kind === kind && r.checkpoint.iteration === iteration;

  /** The run's storage keys (the stored lists under `paper-search/<runId>/`) appear in no response a client gets for it. */
  async function expectNoStorageKey(runId: string): Promise<void> {
    const routes = [`/paper-searches/${runId}`, `/runs/${runId}`, '/runs?type=paper_search', '/runs?type=paper_search&view=full'];
    for (const route of routes) {
      const response = await client.request(route);
      expect(response.status).toBe(200);
      const body = await response.text();
      expect({ route, leaks: body.includes('blobKey') || body.includes(`paper-search/${runId}/`) }).toEqual({ route, leaks: false });
    }
    // The stream's first state (an open run's stream goes on: it is read up to that state, then left).
    const events = await client.request(`/runs/${runId}/events`);
    let first = '';
    for await (const event of sseEvents(events.body as ReadableStream<Uint8Array>)) {
      first = event.data;
      break;
    }
    expect(first).toContain('"workflowType":"paper_search"');
    expect(first).not.toContain('blobKey');
    expect(first).not.toContain(`paper-search/${runId}/`);
  }

  function decide(runId: string, checkpointId: string, body: unknown): Promise<Response> {
    return client.request(`/paper-searches/${runId}/checkpoints/${checkpointId}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }

  it('decides both checkpoints over two iterations, survives a coordinator restart at each checkpoint, and exports the collection', async () => {
    const created = await client.request('/paper-searches', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'e2e-search-1' }, body: JSON.stringify({ query: QUERY }) });
    expect(created.status).toBe(202);
    const { runId } = (await created.json()) as { runId: string };

    // Checkpoint 1, iteration 1: the strategy over the default sources.
    const first = await until(runId, 'at checkpoint 1', atCheckpoint('strategy_confirmation', 1));
    expect(first).toMatchObject({ status: 'waiting', state: 'AWAITING_STRATEGY_CONFIRMATION', iteration: 1, options: { sources: ['openalex', 'semantic_scholar'] } });
    const ckpt1 = first.checkpoint?.checkpointId ?? '';
    expect((await decide(runId, '00000000-0000-4000-8000-0000000000ff', { action: 'approve' })).status).toBe(409);
    const badEdit = await decide(runId, ckpt1, { action: 'edit', revisedData: { queries: [] } });
    expect(badEdit.status).toBe(400);
    expect(await badEdit.json()).toMatchObject({ error: 'validation_failed', issues: [{ path: 'revisedData', message: expect.stringContaining('queries') }] });
    // The coordinator crashes while checkpoint 1 waits: the run resumes at the same checkpoint, and the
    // approval the restarted coordinator takes continues it (it sends the search, below: checkpoint 2).
    await platform.kill('coordinator');
    await platform.start('coordinator');
    expect(await search(runId)).toMatchObject({ status: 'waiting', state: 'AWAITING_STRATEGY_CONFIRMATION', checkpoint: { checkpointId: ckpt1 } });
    const approved = await decide(runId, ckpt1, { action: 'approve' });
    expect(approved.status).toBe(202);
    expect(await approved.json()).toMatchObject({ status: 'applied', state: 'SEARCHING' });
    // The same checkpoint again: it is not open any more.
    expect((await decide(runId, ckpt1, { action: 'approve' })).status).toBe(409);

    // Checkpoint 2, iteration 1: OpenAlex's papers; Semantic Scholar reported as failed, not failing the run.
    const review = await until(runId, 'at checkpoint 2', atCheckpoint('result_review', 1));
    const collection = review.checkpoint?.kind === 'result_review' ? review.checkpoint.payload.collection : undefined;
    expect(collection?.papers.map((p) => p.title).sort()).toEqual(['Attention-based graph neural network for semi-supervised learning', 'Graph Attention Networks', 'How powerful are graph neural networks?']);
    expect(collection?.metadata.sourceReports.map((r) => [r.source, r.status]).sort()).toEqual([
      ['openalex', 'ok'],
      ['semantic_scholar', 'failed'],
    ]);
    expect(openalex.requests.some((u) => u.pathname === '/works' && u.searchParams.get('mailto') === 'team@openpaw.dev')).toBe(true);
    expect(failing.requests.length).toBeGreaterThan(0);
    // The lists went by claim check (the research service stored them in the shared blob store); the export reads the collection's whole papers.
    // The store's own listing (its share secret plays no part in it).
    const stored = await new LocalFsBlobStore({ rootDir: platform.blobDir, shareSecret: 'listing only', shareBaseUrl: 'http://127.0.0.1/v1/shared' }).list({ prefix: `paper-search/${runId}/` });
    expect(stored.items.length).toBeGreaterThan(0);
    // No storage key reaches a client, on any route that serves the run.
    await expectNoStorageKey(runId);
    const bib = await client.request(`/paper-searches/${runId}/export?format=bibtex`);
    expect(bib.status).toBe(200);
    expect(bib.headers.get('content-type')).toMatch(/^application\/x-bibtex/);
    expect(await bib.text()).toContain('Graph Attention Networks');

    // EDIT: keep one paper, never show another again, and iterate.
    const papers = collection?.papers ?? [];
    const kept = papers.find((p) => p.title === 'Graph Attention Networks');
    const dropped = papers.find((p) => p.title === 'How powerful are graph neural networks?');
    expect(kept && dropped).toBeDefined();
    const edited = await decide(runId, review.checkpoint?.checkpointId ?? '', { action: 'edit', revisedData: { markedRelevant: [kept?.id], markedIrrelevant: [dropped?.id], freeText: 'more on attention' } });
    expect(edited.status).toBe(202);

    const second = await until(runId, 'at checkpoint 1 of iteration 2', atCheckpoint('strategy_confirmation', 2));
    expect(second.iterations).toEqual([{ iteration: 1, resultCount: 3, decision: 'edit', note: null, strategyOrigin: expect.objectContaining({ origin: 'local_rules', model: 'local/rules' }) }]);
    expect(second.accumulatedPapers.map((p) => p.id)).toEqual([kept?.id]);
    // Checkpoint 1 of iteration 2 shows what changed from iteration 1's strategy.
    expect(second.checkpoint?.kind === 'strategy_confirmation' ? second.checkpoint.payload.diff : null).not.toBeNull();
    // EDIT at checkpoint 1: the strategy the person approves is the query the source receives (wire server),
    // a NOT, a language and a year bound included, not only its keywords.
    const proposed = second.checkpoint?.kind === 'strategy_confirmation' ? second.checkpoint.payload.strategy : undefined;
    expect(proposed).toBeDefined();
    const revised = {
      ...proposed!,
      queries: proposed!.queries.map((q, i) => (i === 0 ? { ...q, booleanQuery: '"graph neural networks" AND attention NOT survey' } : q)),
      filters: { ...proposed!.filters, yearFrom: 2017, language: 'en' },
    };
    const searchedBefore = openalex.requests.length;
    expect((await decide(runId, second.checkpoint?.checkpointId ?? '', { action: 'edit', revisedData: revised })).status).toBe(202);
    const secondReview = await until(runId, 'at checkpoint 2 of iteration 2', atCheckpoint('result_review', 2));
    const secondCollection = secondReview.checkpoint?.kind === 'result_review' ? secondReview.checkpoint.payload.collection : undefined;
    expect(secondCollection?.papers.map((p) => p.id)).not.toContain(dropped?.id);
    expect(secondCollection?.metadata.rejectedExcluded).toBe(1);
    expect(secondCollection?.metadata.strategy.queries[0]?.booleanQuery).toBe('"graph neural networks" AND attention NOT survey');
    const sent = openalex.requests.slice(searchedBefore).filter((u) => u.pathname === '/works' && (u.searchParams.get('search') ?? '').includes('NOT survey'));
    // The strategy's excluded terms go too: "powerful", the distinctive word of the paper marked irrelevant.
    expect(revised.excludedTerms).toEqual(['powerful']);
    expect(sent.map((u) => [u.searchParams.get('search'), u.searchParams.get('filter')])).toEqual([['("graph neural networks" AND attention) NOT survey NOT powerful', 'publication_year:>2016,language:en']]);

    // The coordinator crashes while the run waits for the person; the run waits on, and is decided later.
    await platform.kill('coordinator');
    await platform.start('coordinator');
    const stillWaiting = await search(runId);
    expect(stillWaiting).toMatchObject({ status: 'waiting', state: 'AWAITING_RESULT_REVIEW', checkpoint: { checkpointId: secondReview.checkpoint?.checkpointId } });
    const events = await client.request(`/runs/${runId}/events`);
    expect(events.status).toBe(200);
    const done = await decide(runId, secondReview.checkpoint?.checkpointId ?? '', { action: 'approve' });
    expect(done.status).toBe(202);
    expect(await done.json()).toMatchObject({ status: 'applied', state: 'COMPLETED' });
    const stream = await events.text();
    expect(stream).toContain('"state":"COMPLETED"');

    const completed = await until(runId, 'completed', (r) => r.status === 'completed');
    await expectNoStorageKey(runId);
    expect(stream).toContain('"papers":');
    expect(stream).not.toContain('blobKey');
    expect(stream).not.toContain(`paper-search/${runId}/`);
    expect(completed).toMatchObject({ terminal: true, completion: 'approved', checkpoint: null, iteration: 2 });
    const result = completed.result as PaperCollection;
    expect(result.papers.map((p) => p.id)).toContain(kept?.id);
    expect(result.papers.map((p) => p.id)).not.toContain(dropped?.id);
    const ris = await client.request(`/paper-searches/${runId}/export?format=ris`);
    expect(await ris.text()).toContain('TI  - Graph Attention Networks');
    const csl = (await (await client.request(`/paper-searches/${runId}/export?format=csl-json`)).json()) as Array<{ title: string }>;
    expect(csl.map((item) => item.title)).toContain('Graph Attention Networks');
    expect((await client.request(`/paper-searches/${runId}/export?format=docx`)).status).toBe(400);

    // The same Idempotency-Key is the same search.
    const again = await client.request('/paper-searches', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'e2e-search-1' }, body: JSON.stringify({ query: QUERY }) });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ runId, status: 'completed' });
  });

  it('refuses bad input naming the field, and hides other users’ searches', async () => {
    const bad = await client.request('/paper-searches', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY, options: { maxIterations: 0 } }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'validation_failed', issues: [{ path: 'options.maxIterations' }] });
    const auto = await client.request('/paper-searches', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'attention', options: { autoApprove: true } }) });
    expect(auto.status).toBe(202);
    const { runId } = (await auto.json()) as { runId: string };
    const completed = await until(runId, 'completed', (r) => r.status === 'completed');
    await expectNoStorageKey(runId);
    expect(completed).toMatchObject({ completion: 'auto_approved', iterations: [{ decision: 'auto_approve' }] });
    const stranger = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'someone-else');
    expect((await stranger.request(`/paper-searches/${runId}`)).status).toBe(404);
    const badDecision = await client.request(`/paper-searches/${runId}/checkpoints/${runId}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'maybe' }) });
    expect(badDecision.status).toBe(400);
    expect(await badDecision.json()).toMatchObject({ issues: [{ path: 'action' }] });
  });

  it('lists paper searches as summaries of a few hundred bytes each; each whole view is one GET /runs/{id} away, or all with view=full', async () => {
    const response = await client.request('/runs?type=paper_search');
    expect(response.status).toBe(200);
    const body = await response.text();
    const page = JSON.parse(body) as { items: Array<{ runId: string } & Record<string, unknown>> };
    expect(page.items.length).toBeGreaterThanOrEqual(2);
    // Before: every item carried its workflow view (strategy, checkpoints, every paper of its collections):
    // kilobytes for these three-paper searches, megabytes a page at 300 papers.
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(400 * page.items.length + 100);
    for (const item of page.items) {
      expect(Object.keys(item).sort()).toEqual(['attemptNo', 'createdAt', 'parentRunId', 'runId', 'state', 'terminal', 'updatedAt', 'version', 'workflowType']);
      expect(item).toMatchObject({ workflowType: 'paper_search', state: 'COMPLETED', terminal: true });
    }
    // The list as it was (every view whole, as GET /runs/{id} answers it), for a client that asks.
    const full = (await (await client.request('/runs?type=paper_search&view=full')).json()) as { items: Array<{ runId: string; view: PaperSearchView }> };
    expect(full.items.map((item) => item.runId)).toEqual(page.items.map((item) => item.runId));
    const one: unknown = await (await client.request(`/runs/${page.items[0]!.runId}`)).json();
    expect(full.items[0]).toEqual(one);
    expect(full.items[0]?.view.result?.papers.length).toBeGreaterThan(0);
    const bad = await client.request('/runs?view=everything');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'validation_failed', issues: [{ path: 'view' }] });
  });

  it('the CLI (`openpaw library`, `openpaw papers`) imports a library, shows both checkpoints and takes the decisions from stdin', async () => {
    const env = cliEnvironment(platform.gatewayUrl, platform.jwtSecret, 'e2e-cli-user');
    const library = await runCli(root, ['library', join(root, 'apps/research/sample-library/openpaw-demo.bib')], env);
    expect(library.code).toBe(0);
    expect(library.stdout).toContain('20 added, 0 updated, 0 skipped');
    // A NUL in the file (no reference can store it) is a 400 naming its line, nothing imported from it.
    const client = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'e2e-cli-user');
    const withNul = await client.request('/library/references/file?format=bibtex', { method: 'POST', headers: { 'content-type': 'application/x-bibtex' }, body: '@article{nul1,\n  title = {Graph \u0000 attention},\n  year = {2018}\n}\n' });
    expect({ status: withNul.status, body: await withNul.json() }).toEqual({ status: 400, body: expect.objectContaining({ error: 'unstorable_text', line: 2 }) });
    // Checkpoint 1: approve. Checkpoint 2: approve, keeping paper 1.
    const { code, stdout, stderr } = await runCli(root, ['papers', 'graph attention networks', '--export', 'ris'], env, { stdin: 'a\na +1\n' });
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('checkpoint 1 of iteration 1: the search strategy');
    expect(stdout).toContain('sources: openalex, semantic_scholar');
    expect(stdout).toContain('checkpoint 2 of iteration 1: 3 papers');
    expect(stdout).toContain('source semantic_scholar failed');
    expect(stdout).toContain('completed (approved) after 1 iteration: 3 papers');
    expect(stdout).toContain('TI  - Graph Attention Networks');
    expect(stderr).toContain('a = approve');
  });

  it("imports the user's BibTeX library and searches it: the local default source", async () => {
    const librarian = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'e2e-librarian');
    const bib = readFileSync(join(root, 'apps/research/sample-library/openpaw-demo.bib'), 'utf8');
    const imported = await librarian.request('/library/references', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ format: 'bibtex', content: bib }) });
    expect(imported.status).toBe(200);
    expect(await imported.json()).toMatchObject({ status: 'imported', added: 20, updated: 0, skipped: [] });
    const started = await librarian.request('/paper-searches', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'graph neural networks with attention', options: { sources: ['library'], autoApprove: true } }),
    });
    const { runId } = (await started.json()) as { runId: string };
    const deadline = Date.now() + 60_000;
    let found: Resource | undefined;
    while (found?.status !== 'completed') {
      if (Date.now() > deadline || found?.status === 'failed') throw new Error(`library search not completed: ${JSON.stringify(found?.error)}`);
      await new Promise((r) => setTimeout(r, 100));
      const response = await librarian.request(`/paper-searches/${runId}`);
      if (response.status === 200) found = (await response.json()) as Resource;
    }
    const titles = found.result?.papers.map((p) => p.title) ?? [];
    expect(titles).toContain('Graph Attention Networks');
    expect(found.result?.papers.every((p) => p.sources.includes('library'))).toBe(true);
    // An unknown format is refused, naming the field.
    expect((await client.request('/library/references', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ format: 'endnote', content: 'x' }) })).status).toBe(400);
  });

  it('imports a library file larger than one command, streamed in parts with NDJSON progress; refuses an oversized or JSON-typed file up front', async () => {
    const librarian = await GatewayClient.forUser(platform.gatewayUrl, platform.jwtSecret, 'e2e-big-librarian');
    const entries = 1_100;
    const bib = Array.from({ length: entries }, (_, i) => `@article{big${i},\n  title = {Streamed reference number ${i} on ${'graph attention '.repeat(30)}},\n  author = {Writer, Ann},\n  year = {2020}\n}\n`).join('');
    expect(Buffer.byteLength(bib)).toBeGreaterThan(600 * 1024);
    const answer = await librarian.request('/library/references/file?format=bibtex', { method: 'POST', headers: { 'content-type': 'application/x-bibtex' }, body: bib });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await answer.text()).trim().split('\n').map((line) => JSON.parse(line) as { event: string; part?: number; status?: string; added?: number; parts?: number });
    expect(lines.filter((l) => l.event === 'part').map((l) => l.part)).toEqual([1, 2]);
    expect(lines.at(-1)).toMatchObject({ event: 'done', parts: 2, skipped: [] });
    const done = lines.at(-1)!;
    // Parts the research service answered within the gateway's wait are counted; a queued one says so.
    expect(done.status === 'imported' ? done.added : entries).toBe(entries);
    const oversized = await new Promise<number>((resolve, reject) => {
      const url = new URL('/library/references/file?format=ris', platform.gatewayUrl);
      const req = httpRequest(url, { method: 'POST', headers: { authorization: librarian.authorization, 'content-type': 'application/x-research-info-systems', 'content-length': String(60 * 1024 * 1024) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('TY  - JOUR\n');
    });
    expect(oversized).toBe(413);
    const json = await librarian.request('/library/references/file?format=bibtex', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: bib.slice(0, 100) }) });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'unsupported_media_type' });
  });

  it('documents the paper-search routes in the OpenAPI document', async () => {
    const document = (await (await fetch(`${platform.gatewayUrl}/docs/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/paper-searches', '/paper-searches/{id}', '/paper-searches/{id}/checkpoints/{checkpointId}/decision', '/paper-searches/{id}/export']),
    );
    expect(document.paths['/paper-searches/{id}/checkpoints/{checkpointId}/decision']?.['post']).toMatchObject({ responses: { '409': expect.anything(), '400': expect.anything() } });
  });
});
