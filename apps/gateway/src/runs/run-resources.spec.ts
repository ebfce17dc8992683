import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAPER_SEARCH, type PaperCollection, type PaperSearchView } from '@openpaw/contracts';
import { LocalFsBlobStore } from '@openpaw/providers/blob';
import { paperCollectionFixture, scoredPaperFixture } from '@openpaw/testkit';
import type { Request, Response } from 'express';
import type { GatewayConfig } from '../config.js';
import { RunEventBus } from '../events/run-event-bus.js';
import type { RunCursor, RunProjection, RunProjectionStore, RunSummaryProjection } from '../projection/run-projection.store.js';
import { RunEventsStream } from './run-events/run-events.stream.js';
import { StoredPaperLists } from '../paper-searches/export/stored-paper-lists.js';
import { RunResources } from './run-resources.js';
import { RunsController } from './runs.controller.js';
import { listRunsQuery, runCursor, type RunResource } from './runs.schemas.js';

const RUN_ID = '00000000-0000-4000-8000-000000000002';
const USER = 'user-1';

// 300 papers stored whole; the message (and so the projected view) carried the first 120.
const stored = Array.from({ length: 300 }, (_, i) => scoredPaperFixture(`doi:10.1/p${i}`, { title: `Paper ${i}`, abstract: `Abstract ${i}.` }));
const carried: PaperCollection = {
  ...paperCollectionFixture(stored.slice(0, 120).map((p) => ({ ...p, abstract: null }))),
  wholePapers: { blobKey: 'paper-search/run/whole.json', count: 300, cuts: { papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 } },
};
const view: PaperSearchView = {
  status: 'completed',
  state: 'COMPLETED',
  query: 'q',
  options: { strategyCheckpoint: true, autoApprove: false, maxIterations: 5, sources: ['library'] },
  iteration: 1,
  checkpoint: null,
  accumulatedPapers: [],
  iterations: [],
  result: carried,
  completion: null,
  error: null,
  papersTrimmed: true,
};
const at = new Date('2026-01-01T00:00:00.000Z');
const run: RunProjection = { runId: RUN_ID, workflowType: PAPER_SEARCH, userId: USER, state: 'COMPLETED', terminal: true, attemptNo: 1, version: 7, parentRunId: null, view, createdAt: at, updatedAt: at, attemptStartedAt: at };

const resultPapers = (resource: { view?: RunResource['view'] }): unknown[] => (resource.view?.['result'] as { papers: unknown[] }).papers;
/** What the store's `listSummaries` answers for a run: its row without the view. */
const summaryOf = ({ view: _view, ...summary }: RunProjection): RunSummaryProjection => summary;

describe('generic run routes serve a paper search whole (claim check)', () => {
  let dir: string;
  let resources: RunResources;
  let blobs: LocalFsBlobStore;
  const store = {
    findForUser: (id: string, userId: string) => Promise.resolve(id === RUN_ID && userId === USER ? run : undefined),
    findWhen: () => Promise.resolve(run),
    find: () => Promise.resolve(run),
    list: () => Promise.resolve({ items: [run] }),
    listSummaries: () => Promise.resolve({ items: [summaryOf(run)] }),
  } as unknown as RunProjectionStore; // only the reads these routes make

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'run-resources-'));
    blobs = new LocalFsBlobStore({ rootDir: dir, shareSecret: 'secret', shareBaseUrl: 'http://127.0.0.1/v1/shared' });
    await blobs.put('paper-search/run/whole.json', JSON.stringify(stored));
    resources = new RunResources(new StoredPaperLists(blobs));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** `count` paper searches, each with its own stored list of 300 papers, one second apart, newest first. */
  const storedPaperSearches = (count: number, firstId: number): Promise<RunProjection[]> =>
    Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const blobKey = `paper-search/run-${firstId + i}/whole.json`;
        await blobs.put(blobKey, JSON.stringify(stored));
        const result = { ...carried, wholePapers: { ...carried.wholePapers!, blobKey } };
        const createdAt = new Date(at.getTime() - i * 1000);
        return { ...run, runId: `00000000-0000-4000-8000-${String(firstId + i).padStart(12, '0')}`, view: { ...view, result }, createdAt, updatedAt: createdAt };
      }),
    );

  it('GET /runs/:id and GET /runs?view=full list every stored paper, with no storage key', async () => {
    // Only the reads `get` and `list` use are given; the other collaborators are not called.
    const controller = new RunsController(store, undefined as never, undefined as never, undefined as never, resources);
    const one = await controller.get({ userId: USER }, { id: RUN_ID });
    expect(resultPapers(one)).toHaveLength(300);
    expect(resultPapers(one)[299]).toMatchObject({ id: 'doi:10.1/p299', abstract: 'Abstract 299.' });
    expect(JSON.stringify(one)).not.toContain('whole.json');
    // The facets count the papers served, not the ones the message carried (the projected view's facets are empty here).
    expect((one.view['result'] as { facets: unknown }).facets).toMatchObject({ byYear: [{ year: 2020, count: 300 }] });
    const page = await controller.list({ userId: USER }, { limit: 20, view: 'full' });
    expect(resultPapers(page.items[0]!)).toHaveLength(300);
  });

  it('GET /runs?view=full reads each paper search’s stored list once: a page read again, or its runs opened, make no blob read', async () => {
    // A page of 20 paper searches, each with its own stored list of 300 papers.
    const runs = await storedPaperSearches(20, 100);
    const reads: string[] = [];
    const page = { ...store, list: () => Promise.resolve({ items: runs }), findForUser: (id: string) => Promise.resolve(runs.find((r) => r.runId === id)) } as unknown as RunProjectionStore;
    const controller = new RunsController(page, undefined as never, undefined as never, undefined as never, new RunResources(new StoredPaperLists({ get: (key) => (reads.push(key), blobs.get(key)) })));
    const first = await controller.list({ userId: USER }, { limit: 20, view: 'full' });
    expect(first.items.length).toBeGreaterThan(3);
    expect(first.items.map((item) => resultPapers(item).length)).toEqual(first.items.map(() => 300));
    // Only the batches the page's byte budget reached are resolved (10 at a time).
    const readsOfAPage = reads.length;
    expect(readsOfAPage).toBeLessThanOrEqual(20);
    // Before: 20 more reads per page, and one per run opened.
    const again = await controller.list({ userId: USER }, { limit: 20, view: 'full' });
    await controller.get({ userId: USER }, { id: runs[3]!.runId });
    expect(reads).toHaveLength(readsOfAPage);
    expect(again).toEqual(first);
  });

  it('GET /runs?view=full ends a page of large runs before 1 MB of JSON, and its cursor continues after the last item served', async () => {
    // 100 paper searches of 300 papers each (~85 KB whole): limit=100 was a page of ~8.5 MB.
    const runs = await storedPaperSearches(100, 500);
    const reads: string[] = [];
    const asked: Array<{ limit: number; after?: RunCursor }> = [];
    const listed = {
      ...store,
      list: (query: { limit: number; after?: RunCursor }) => {
        asked.push(query);
        const start = query.after === undefined ? 0 : runs.findIndex((r) => r.runId === query.after!.runId) + 1;
        const items = runs.slice(start, start + query.limit);
        const last = items.at(-1);
        return Promise.resolve(start + query.limit < runs.length && last !== undefined ? { items, next: { createdAt: last.createdAt, runId: last.runId } } : { items });
      },
    } as unknown as RunProjectionStore;
    const controller = new RunsController(listed, undefined as never, undefined as never, undefined as never, new RunResources(new StoredPaperLists({ get: (key) => (reads.push(key), blobs.get(key)) })));
    const page = await controller.list({ userId: USER }, { limit: 100, view: 'full' });
    const bytes = Buffer.byteLength(JSON.stringify(page));
    expect(bytes).toBeLessThanOrEqual(1_000_000 + 1_000);
    expect(page.items.length).toBeGreaterThan(1);
    expect(page.items.length).toBeLessThan(100);
    // The runs past the budget's batch were never resolved.
    expect(reads.length).toBeLessThanOrEqual(Math.ceil((page.items.length + 1) / 10) * 10);
    expect(page.nextCursor).toBeDefined();
    // Following the cursors serves every run once, in order.
    const served = page.items.map((item) => item.runId);
    let cursor = page.nextCursor;
    while (cursor !== undefined) {
      const after = runCursor.parse(cursor);
      const next = await controller.list({ userId: USER }, { limit: 100, view: 'full', cursor: after });
      expect(Buffer.byteLength(JSON.stringify(next))).toBeLessThanOrEqual(1_000_000 + 1_000);
      served.push(...next.items.map((item) => item.runId));
      cursor = next.nextCursor;
    }
    expect(served).toEqual(runs.map((r) => r.runId));
  });

  it('GET /runs answers summaries by default: a page of 20 paper searches of 300 papers in a few KB, with no view read and no blob read', async () => {
    const runs = Array.from({ length: 20 }, (_, i) => {
      const result = { ...carried, wholePapers: { ...carried.wholePapers!, blobKey: `paper-search/run-${i}/whole.json` } };
      return { ...run, runId: `00000000-0000-4000-8000-${String(200 + i).padStart(12, '0')}`, view: { ...view, result } };
    });
    const reads: string[] = [];
    const viewsRead: string[] = [];
    const page = {
      list: () => (viewsRead.push('list'), Promise.resolve({ items: runs })),
      listSummaries: () => Promise.resolve({ items: runs.map(summaryOf), next: { createdAt: at, runId: runs[19]!.runId } }),
    } as unknown as RunProjectionStore;
    const controller = new RunsController(page, undefined as never, undefined as never, undefined as never, new RunResources(new StoredPaperLists({ get: (key) => (reads.push(key), blobs.get(key)) })));
    const summaries = await controller.list({ userId: USER }, listRunsQuery.parse({}));
    // Before: every item carried its view, 300 whole papers each (megabytes for the page).
    expect(Buffer.byteLength(JSON.stringify(summaries))).toBeLessThan(20 * 400 + 200);
    expect(summaries.items[0]).toEqual({ runId: runs[0]!.runId, workflowType: PAPER_SEARCH, state: 'COMPLETED', terminal: true, attemptNo: 1, version: 7, parentRunId: null, createdAt: at.toISOString(), updatedAt: at.toISOString() });
    expect(summaries.items.some((item) => 'view' in item)).toBe(false);
    expect(summaries.nextCursor).toBeDefined();
    expect({ reads, viewsRead }).toEqual({ reads: [], viewsRead: [] });
  });

  it('the SSE stream sends the state with every stored paper', async () => {
    const config = { sseHeartbeatMs: 60_000 } as GatewayConfig;
    const stream = new RunEventsStream(store, new RunEventBus(), resources, config);
    let written = '';
    const response = Object.assign(new EventEmitter(), {
      status: () => response,
      setHeader: () => response,
      write: (chunk: string) => {
        written += chunk;
        return true;
      },
      // The terminal state goes out with the end of the stream.
      end: (chunk?: string) => {
        written += chunk ?? '';
      },
    });
    const request = { headers: {} } as Request;
    expect(await stream.stream({ runId: RUN_ID, userId: USER, graceMs: 0 }, request, response as unknown as Response)).toBe(true);
    const data = /^data: (.*)$/m.exec(written)?.[1];
    expect(data).toBeDefined();
    expect(resultPapers(JSON.parse(data!) as RunResource)).toHaveLength(300);
  });
});
