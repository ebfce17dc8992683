import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import type {
  PapersDeduplicated,
  PaperSourcesSearched,
  PapersOrganised,
  PapersScored,
  SearchStrategyBuilt} from '@openpaw/contracts';
import {
  BuildSearchStrategy,
  CRITICAL_LANE,
  DeduplicatePapers,
  deterministicUuid,
  type Envelope,
  ImportLibraryReferences,
  laneDurableOf,
  laneOf,
  LibraryReferencesImported,
  type MessageData,
  OrganisePapers,
  PAPER_SEARCH,
  PAPER_SEARCH_LANE,
  PaperSearchIntentParsed,
  ParsePaperSearchIntent,
  RunEnded,
  ScorePapers,
  SearchPaperSources,
  searchStrategy,
  STREAMS,
} from '@openpaw/contracts';
import { connectNats, JetStreamPublisher, provisionStreams } from '@openpaw/messaging';
import { type RunningService, startService } from '@openpaw/platform';
import { createLlmFromEnv, OpenAlexSource, type ScholarlySource, SemanticScholarSource } from '@openpaw/providers';
import { freshDatabase, privateNatsServer, waitFor } from '@openpaw/testing';
import { ResearchModule, SERVICE_NAME } from './app.module.js';
import { type ResearchSettings, researchSettingsFromEnv } from './config.js';
import type { PaperSetRetention } from './paper-search/retention/paper-set-retention.js';
import { openResearchDatabase } from './persistence/database.js';
import { RESEARCH_PAPER_SET_RETENTION, RESEARCH_PAPER_SETS } from './ports.js';
import { type PaperSets, runPaperSetsPrefix } from './paper-search/papers/paper-sets.js';

process.env['LOG_LEVEL'] ??= 'warn';

const USER = 'researcher-7';
const RUN = deterministicUuid('research-int-spec', String(Date.now()));
const DEMO_BIB = readFileSync(join(import.meta.dirname, '../sample-library/openpaw-demo.bib'), 'utf8');

/** An OpenAlex works endpoint: one page holding the GAT paper (also in the library) and one other. */
function startOpenAlexServer(): Promise<{ server: Server; url: string; requests: URL[] }> {
  const requests: URL[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(url);
    res.writeHead(200, { 'content-type': 'application/json' });
    const search = url.searchParams.get('search') ?? '';
    if (search.includes('claimcheck')) {
      res.end(JSON.stringify(manyWorksPage(search, url.searchParams.get('cursor') ?? '*', Number(url.searchParams.get('per_page')))));
      return;
    }
    res.end(
      JSON.stringify({
        meta: { count: 2, per_page: 25, next_cursor: null },
        results: [
          {
            id: 'https://openalex.org/W2963858333',
            doi: null,
            display_name: 'Graph Attention Networks',
            publication_year: 2018,
            authorships: [{ author: { id: 'https://openalex.org/A1', display_name: 'Petar Veličković' } }],
            primary_location: { landing_page_url: 'https://arxiv.org/abs/1710.10903v3', source: { display_name: 'arXiv' } },
            abstract_inverted_index: { We: [0], present: [1], graph: [2], attention: [3], networks: [4] },
            cited_by_count: 20000,
            ids: {},
          },
          {
            id: 'https://openalex.org/W1',
            doi: 'https://doi.org/10.1000/GNN.SURVEY',
            display_name: 'A comprehensive survey on graph neural networks',
            publication_year: 2021,
            authorships: [],
            primary_location: { source: { display_name: 'IEEE Transactions on Neural Networks and Learning Systems' } },
            cited_by_count: 5000,
            ids: {},
          },
        ],
      }),
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests })));
}

/** Works per `claimcheck` query: more than one message could carry across two queries. */
const MANY_PER_QUERY = 150;

/** A page of distinct works for a `claimcheck` query (`W<query word>-<n>`), cursor paging to `MANY_PER_QUERY`. */
function manyWorksPage(search: string, cursor: string, perPage: number): object {
  const word = /claimcheck (\w+)/.exec(search)?.[1] ?? 'x';
  const from = cursor === '*' ? 0 : Number(cursor);
  const to = Math.min(from + perPage, MANY_PER_QUERY);
  const results = Array.from({ length: to - from }, (_, k) => {
    const n = from + k;
    const abstract = Object.fromEntries(`claimcheck ${word} study number ${n} with a long abstract`.split(' ').map((w, i) => [w, [i]]));
    return { id: `https://openalex.org/W${word}${n}`, doi: `https://doi.org/10.5555/${word}.${n}`, display_name: `Claim check ${word} paper ${n}`, publication_year: 2020, authorships: [], abstract_inverted_index: abstract, cited_by_count: n, ids: {} };
  });
  return { meta: { count: MANY_PER_QUERY, per_page: perPage, next_cursor: to < MANY_PER_QUERY ? String(to) : null }, results };
}

describe('research service: the paper-search commands on real NATS and PostgreSQL', () => {
  let nats: Awaited<ReturnType<typeof privateNatsServer>>;
  let service: RunningService;
  let nc: NatsConnection;
  let publisher: JetStreamPublisher;
  let subscription: Subscription;
  let openalex: Awaited<ReturnType<typeof startOpenAlexServer>>;
  const replies: Envelope[] = [];
  // The shared blob store the claim check writes to (a local directory, as in development).
  const blobDir = mkdtempSync(join(tmpdir(), 'research-int-blobs-'));
  let settings: ResearchSettings;
  let sources: ScholarlySource[];

  beforeAll(async () => {
    nats = await privateNatsServer();
    openalex = await startOpenAlexServer();
    settings = {
      ...researchSettingsFromEnv({ OPENPAW_NATS_URL: nats.url, OPENPAW_BLOB_DIR: blobDir }),
      databaseUrl: await freshDatabase('research_service'),
      poolSize: 4,
      perSourceLimit: MANY_PER_QUERY,
      sourceDeadlineMs: 5_000,
      maxTokens: 1_000,
      scoreBatchSize: 20,
      stepDeadlineMs: 10_000,
      paperSearchConcurrency: 2,
    };
    // Two remote sources: OpenAlex answering, Semantic Scholar refusing every connection (port 9).
    sources = [new OpenAlexSource({ baseUrl: openalex.url, mailto: 'team@openpaw.dev' }), new SemanticScholarSource({ baseUrl: 'http://127.0.0.1:9/graph/v1', retry: { maxAttempts: 1 } })];
    service = await startService({ name: SERVICE_NAME, module: ResearchModule.forRoot(settings, { llm: createLlmFromEnv({}), sources }), defaultPort: 0, port: 0 });
    nc = await connectNats({ servers: nats.url, name: 'research-int-spec' });
    await provisionStreams(await jetstreamManager(nc));
    publisher = new JetStreamPublisher(jetstream(nc));
    subscription = nc.subscribe('openpaw.evt.paper-search.>', {
      callback: (_error, msg) => {
        replies.push(msg.json<Envelope>());
      },
    });
    await nc.flush();
  });

  afterAll(async () => {
    subscription?.unsubscribe();
    await nc?.close();
    await service?.app.close();
    await new Promise((resolve) => openalex?.server.close(resolve));
    await nats?.dispose();
    rmSync(blobDir, { recursive: true, force: true });
  });

  function replyTo<D>(command: Envelope, count = 1): Promise<Envelope<D>> {
    return waitFor(() => {
      const matching = replies.filter((r) => r.causationid === command.id);
      return matching.length >= count ? (matching[count - 1] as Envelope<D>) : undefined;
    }, `reply ${count} to ${command.type}`);
  }

  const meta = { source: '/openpaw/coordinator', correlationId: RUN, userId: USER, subject: RUN };

  it('probes, metrics and the durable consumers of both lanes are up: critical (library import) and papersearch (the skills)', async () => {
    expect(await (await fetch(`${service.url}/healthz`)).json()).toEqual({ status: 'ok', service: 'research' });
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    const jsm = await jetstreamManager(nc);
    const consumer = await jsm.consumers.info(STREAMS.commands.name, 'svc-research');
    expect(consumer.config.filter_subject).toBe('openpaw.cmd.research.>');
    const skills = await jsm.consumers.info(STREAMS.commands.name, laneDurableOf(SERVICE_NAME, PAPER_SEARCH_LANE));
    expect(skills.config.filter_subject).toBe('openpaw.cmd.research.>');
    expect([ParsePaperSearchIntent, SearchPaperSources, ScorePapers].map(laneOf)).toEqual([PAPER_SEARCH_LANE, PAPER_SEARCH_LANE, PAPER_SEARCH_LANE]);
    expect(laneOf(ImportLibraryReferences)).toBe(CRITICAL_LANE);
  });

  it('runs one iteration: import, parse, build, search (one source failing), dedup, score, organise; a redelivery gets the same reply', async () => {
    const importCommand = await publisher.publish(ImportLibraryReferences, { importId: deterministicUuid(RUN, 'import'), userId: USER, format: 'bibtex', content: DEMO_BIB }, meta);
    const imported = await replyTo<MessageData<typeof LibraryReferencesImported>>(importCommand);
    expect(imported).toMatchObject({ type: LibraryReferencesImported.subject, id: deterministicUuid(importCommand.id, LibraryReferencesImported.subject), data: { added: 20, updated: 0, skipped: [] } });

    const parse = await publisher.publish(ParsePaperSearchIntent, { runId: RUN, query: 'graph neural networks with attention since 2016' }, meta);
    const parsed = await replyTo<MessageData<typeof PaperSearchIntentParsed>>(parse);
    expect(parsed).toMatchObject({ type: PaperSearchIntentParsed.subject, causationid: parse.id, correlationid: RUN, userid: USER, source: '/openpaw/research' });
    const { intent } = parsed.data;
    expect(intent).toMatchObject({ concepts: ['graph neural networks', 'attention'], constraints: { yearFrom: 2016 } });
    expect(parsed.data.provenance.local).toBe(true);

    const build = await publisher.publish(BuildSearchStrategy, { runId: RUN, iteration: 1, intent, previousStrategies: [], feedback: null, availableSources: ['library', 'openalex', 'semantic_scholar'] }, meta);
    const built = await replyTo<MessageData<typeof SearchStrategyBuilt>>(build);
    expect(built.data.diff).toBeNull();
    const { strategy } = built.data;

    const search = await publisher.publish(SearchPaperSources, { runId: RUN, iteration: 1, userId: USER, strategy }, meta);
    const searched = await replyTo<MessageData<typeof PaperSourcesSearched>>(search);
    expect(searched.data.sourceReports.map((r) => [r.source, r.status, r.error?.kind ?? null])).toEqual([
      ['library', 'ok', null],
      ['openalex', 'ok', null],
      ['semantic_scholar', 'failed', 'network'],
    ]);
    expect(openalex.requests[0]!.searchParams.get('mailto')).toBe('team@openpaw.dev');
    expect(searched.data.papers.map((p) => p.title)).toContain('Graph Attention Networks');

    const dedup = await publisher.publish(DeduplicatePapers, { runId: RUN, iteration: 1, papers: searched.data.papers, excludePaperIds: ['doi:10.1000/gnn.survey'] }, meta);
    const deduped = await replyTo<MessageData<typeof PapersDeduplicated>>(dedup);
    expect(deduped.data).toMatchObject({ duplicatesMerged: 1, rejectedExcluded: 1 });
    const gat = deduped.data.papers.find((p) => p.arxivId === '1710.10903')!;
    expect(gat.sources.sort()).toEqual(['library', 'openalex']);
    expect(gat.sourceIds.map((s) => s.id).sort()).toEqual(['W2963858333', 'velickovic2018gat']);

    const score = await publisher.publish(ScorePapers, { runId: RUN, iteration: 1, query: parse.data.query, intent, strategy, papers: deduped.data.papers }, meta);
    const scored = await replyTo<MessageData<typeof PapersScored>>(score);
    expect(scored.data.provenance).toMatchObject({ local: true, model: 'local/lexical-overlap' });
    expect(scored.data.papers[0]!.relevanceReason).toMatch(/^Local lexical score \(no LLM\)/);

    const organise = await publisher.publish(
      OrganisePapers,
      {
        runId: RUN,
        iteration: 1,
        query: parse.data.query,
        strategy,
        papers: scored.data.papers,
        scoredBy: scored.data.provenance,
        totalFound: searched.data.papers.length,
        duplicatesMerged: deduped.data.duplicatesMerged,
        rejectedExcluded: deduped.data.rejectedExcluded,
        sourceReports: searched.data.sourceReports,
      },
      meta,
    );
    const organised = await replyTo<MessageData<typeof PapersOrganised>>(organise);
    const { collection } = organised.data;
    expect(collection.papers.map((p) => p.id)).toEqual(scored.data.papers.map((p) => p.id));
    expect(collection.metadata.sourceReports.find((r) => r.source === 'semantic_scholar')!.status).toBe('failed');
    expect(collection.facets.byYear.length).toBeGreaterThan(0);

    // The relay re-sends the search under a new Nats-Msg-Id: the kept reply, same id, no new source request.
    const requestsBefore = openalex.requests.length;
    await publisher.publishEnvelope(search, { msgId: `${search.id}:again` });
    const again = await replyTo<MessageData<typeof PaperSourcesSearched>>(search, 2);
    expect(again.id).toBe(searched.id);
    expect(again.data).toEqual(searched.data);
    expect(openalex.requests.length).toBe(requestsBefore);
  });

  it('claim check: 300 papers go search → dedup → score → organise by reference, none left out; a redelivery gets the same stored set; a restart reads it; an older sender still gets them inline, capped and counted', async () => {
    const claimMeta = { ...meta, correlationId: deterministicUuid(RUN, 'claim'), subject: deterministicUuid(RUN, 'claim') };
    const runId = claimMeta.correlationId;
    const strategy = searchStrategy.parse({
      queries: [
        { keywords: ['claimcheck alpha'], booleanQuery: '"claimcheck alpha"' },
        { keywords: ['claimcheck beta'], booleanQuery: '"claimcheck beta"' },
      ],
      sources: ['openalex'],
      filters: { maxResults: 500 },
    });
    const search = await publisher.publish(SearchPaperSources, { runId, iteration: 1, userId: USER, strategy, papersByReference: true }, claimMeta);
    const searched = await replyTo<MessageData<typeof PaperSourcesSearched>>(search);
    expect(searched.data.papers).toEqual([]);
    expect(searched.data.papersRef).toEqual({ blobKey: expect.stringMatching(new RegExp(`^paper-search/${runId}/`)), count: 2 * MANY_PER_QUERY });
    expect(searched.data.cuts).toEqual({ papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 });

    const dedup = await publisher.publish(DeduplicatePapers, { runId, iteration: 1, papers: [], papersRef: searched.data.papersRef, excludePaperIds: ['doi:10.5555/alpha.0'], papersByReference: true }, claimMeta);
    const deduped = await replyTo<MessageData<typeof PapersDeduplicated>>(dedup);
    expect(deduped.data).toMatchObject({ papers: [], papersRef: { count: 2 * MANY_PER_QUERY - 1 }, duplicatesMerged: 0, rejectedExcluded: 1 });
    // Redelivered: the kept reply, naming the same stored set.
    await publisher.publishEnvelope(dedup, { msgId: `${dedup.id}:again` });
    expect((await replyTo<MessageData<typeof PapersDeduplicated>>(dedup, 2)).data.papersRef).toEqual(deduped.data.papersRef);

    // A restart: a new process over the same blob store and database reads the stored set.
    await service.app.close();
    service = await startService({ name: SERVICE_NAME, module: ResearchModule.forRoot(settings, { llm: createLlmFromEnv({}), sources }), defaultPort: 0, port: 0 });
    const score = await publisher.publish(ScorePapers, { runId, iteration: 1, query: 'claimcheck', intent: { topic: 'claimcheck', concepts: ['claimcheck'], intentType: 'survey', constraints: { yearFrom: null, yearTo: null, language: null, maxResults: 500 } }, strategy, papers: [], papersRef: deduped.data.papersRef, papersByReference: true }, claimMeta);
    const scored = await replyTo<MessageData<typeof PapersScored>>(score);
    expect(scored.data).toMatchObject({ papers: [], papersRef: { count: 2 * MANY_PER_QUERY - 1 } });

    const organise = await publisher.publish(
      OrganisePapers,
      { runId, iteration: 1, query: 'claimcheck', strategy, papers: [], papersRef: scored.data.papersRef, scoredBy: scored.data.provenance, totalFound: 2 * MANY_PER_QUERY, duplicatesMerged: 0, rejectedExcluded: 1, sourceReports: searched.data.sourceReports, cuts: searched.data.cuts, papersByReference: true },
      claimMeta,
    );
    const { collection } = (await replyTo<MessageData<typeof PapersOrganised>>(organise)).data;
    // Every paper found is in the collection (the strategy asked for up to 500), abstracts whole: nothing cut.
    expect(collection.papers).toHaveLength(2 * MANY_PER_QUERY - 1);
    expect(collection.papers.every((p) => p.abstract?.endsWith('with a long abstract') === true)).toBe(true);
    expect(collection.metadata.cuts).toEqual({ papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 });
    // ... and stored whole for exports (the message's own papers may be shortened to fit).
    expect(collection.wholePapers).toEqual({ blobKey: expect.stringMatching(new RegExp(`^paper-search/${runId}/`)), count: 2 * MANY_PER_QUERY - 1, cuts: searched.data.cuts });

    // A sender from before the claim check (no papersByReference): inline, capped to one message, the rest counted.
    const older = await publisher.publish(SearchPaperSources, { runId, iteration: 2, userId: USER, strategy }, claimMeta);
    const inline = await replyTo<MessageData<typeof PaperSourcesSearched>>(older);
    expect(inline.data.papersRef).toBeUndefined();
    expect(inline.data.papers).toHaveLength(200);
    expect(inline.data.cuts?.papersLeftOut).toBe(2 * MANY_PER_QUERY - 200);
  });

  it("retention: the run's end (RunEnded, paper_search) is recorded once, another workflow's is not; past the retention its stored lists are swept", async () => {
    const runId = deterministicUuid(RUN, 'claim');
    const blobs = service.app.get<PaperSets>(RESEARCH_PAPER_SETS).blobs;
    const stored = async () => (await blobs!.list({ prefix: runPaperSetsPrefix(runId) })).items.length;
    expect(await stored()).toBeGreaterThan(0);
    const endMeta = { ...meta, source: '/openpaw/coordinator', correlationId: runId, subject: runId };
    const otherRun = deterministicUuid(RUN, 'another workflow');
    await publisher.publish(RunEnded, { runId: otherRun, workflowType: 'visual_degrees', state: 'FAILED', reason: 'runtime_budget_exhausted' }, { ...endMeta, correlationId: otherRun, subject: otherRun });
    await publisher.publish(RunEnded, { runId, workflowType: PAPER_SEARCH, state: 'COMPLETED', reason: 'approved' }, endMeta);
    const db = await openResearchDatabase(settings);
    try {
      const ends = await waitFor(async () => {
        const rows = await db.query<{ run_id: string }[]>('select run_id from research.paper_set_run_ends');
        return rows.length > 0 ? rows.map((r) => r.run_id) : undefined;
      }, 'the recorded end');
      expect(ends).toEqual([runId]);
      const retention = service.app.get<PaperSetRetention>(RESEARCH_PAPER_SET_RETENTION);
      // Within the retention nothing goes; past it (the default 30 days) the run's folder is emptied.
      expect(await retention.sweep(new Date())).toMatchObject({ runsSwept: 0 });
      expect(await retention.sweep(new Date(Date.now() + (settings.paperListRetentionDays + 1) * 86_400_000))).toMatchObject({ runsSwept: 1, runsReopened: 0 });
      expect(await stored()).toBe(0);
    } finally {
      await db.destroy();
    }
  });
});
