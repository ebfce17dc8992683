import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PaperSetRef, type ParsedIntent, PaperSearchStepFailed, searchStrategy, type SkillProvenance } from '@openpaw/contracts';
import { isReplyOf, type Reply } from '@openpaw/messaging';
import { createLlmFromEnv, LocalFsBlobStore } from '@openpaw/providers';
import { InMemoryKeptReplyStore } from '@openpaw/testkit';
import { PaperSets, paperSetKey } from '../paper-search/papers/paper-sets.js';
import { RUN_ID, skillsFor, testSettings } from '../testing/handler-fixtures.js';
import { DeduplicatePapersHandler } from './deduplicate-papers/deduplicate-papers.handler.js';
import { OrganisePapersHandler } from './organise-papers/organise-papers.handler.js';
import { ScorePapersHandler } from './score-papers/score-papers.handler.js';

const OTHER_RUN = '0195a2b4-7c1d-8e2f-9a3b-000000000002';
const intent: ParsedIntent = { topic: 'attention', concepts: ['attention'], intentType: 'method', constraints: { yearFrom: null, yearTo: null, language: null, maxResults: 100 } };
const strategy = searchStrategy.parse({ queries: [{ keywords: ['attention'], booleanQuery: 'attention' }], sources: ['library'], filters: {} });
const scoredBy: SkillProvenance = { model: 'local/lexical-overlap', local: true, method: 'LOCAL', costUsd: 0 };

/** Every handler that reads a stored list, given a reference, as the step it reports. */
function readers(sets: PaperSets): { readonly step: string; readonly run: (ref: PaperSetRef, commandId: string) => Promise<Reply> }[] {
  const skills = skillsFor(createLlmFromEnv({}));
  const clock = { now: () => Date.UTC(2026, 10, 27), sleep: () => Promise.resolve() };
  const common = { runId: RUN_ID, iteration: 1, papers: [], papersByReference: true };
  return [
    {
      step: 'deduplicate',
      run: (papersRef, commandId) => new DeduplicatePapersHandler(new InMemoryKeptReplyStore(), sets, testSettings).execute({ commandId, data: { ...common, papersRef, excludePaperIds: [] } }),
    },
    {
      step: 'score',
      run: (papersRef, commandId) => new ScorePapersHandler(skills, new InMemoryKeptReplyStore(), testSettings, sets).execute({ commandId, data: { ...common, papersRef, query: 'attention', intent, strategy } }),
    },
    {
      step: 'organise',
      run: (papersRef, commandId) =>
        new OrganisePapersHandler(skills, new InMemoryKeptReplyStore(), testSettings, clock, sets).execute({
          commandId,
          data: { ...common, papersRef, query: 'attention', strategy, scoredBy, totalFound: 1, duplicatesMerged: 0, rejectedExcluded: 0, sourceReports: [] },
        }),
    },
  ];
}

describe('a stored paper list that cannot be read fails its step at once (invalid_input), never a redelivery loop', () => {
  let dir: string;
  let blobs: LocalFsBlobStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'unreadable-paper-set-'));
    blobs = new LocalFsBlobStore({ rootDir: dir, shareSecret: 'secret', shareBaseUrl: 'http://127.0.0.1/v1/shared' });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const expectInvalidInput = (reply: Reply, step: string, detail: RegExp) => {
    if (!isReplyOf(reply, PaperSearchStepFailed)) throw new Error(`expected PaperSearchStepFailed, got ${reply.message.name}`);
    expect(reply.data).toMatchObject({ runId: RUN_ID, step, errorCode: 'invalid_input', retryable: false });
    expect(reply.data.detail).toMatch(detail);
  };

  it('given a reference to a key the store does not hold (swept or never stored), then each reader says the list is gone', async () => {
    for (const reader of readers(new PaperSets(blobs))) {
      expectInvalidInput(await reader.run({ blobKey: paperSetKey(RUN_ID, 'never-stored'), count: 3 }, `${reader.step}-missing`), reader.step, /is gone/);
    }
  });

  it('given a corrupt body (not JSON, not papers, a count unlike its reference), then each reader says what is wrong', async () => {
    const notJson = paperSetKey(RUN_ID, 'not-json');
    const notPapers = paperSetKey(RUN_ID, 'not-papers');
    const shortList = paperSetKey(RUN_ID, 'short');
    await blobs.put(notJson, '[{"id": "doi:10.1/x", "title": "truncated', { contentType: 'application/json' });
    await blobs.put(notPapers, JSON.stringify([{ id: 'doi:10.1/x' }]), { contentType: 'application/json' });
    await blobs.put(shortList, '[]', { contentType: 'application/json' });
    for (const reader of readers(new PaperSets(blobs))) {
      expectInvalidInput(await reader.run({ blobKey: notJson, count: 1 }, `${reader.step}-json`), reader.step, /is not JSON/);
      expectInvalidInput(await reader.run({ blobKey: notPapers, count: 1 }, `${reader.step}-papers`), reader.step, /does not hold valid papers \(0\.title/);
      expectInvalidInput(await reader.run({ blobKey: shortList, count: 2 }, `${reader.step}-count`), reader.step, /holds 0 papers, its reference says 2/);
    }
  });

  it("given a reference into another run's folder, then it is not followed", async () => {
    const elsewhere = paperSetKey(OTHER_RUN, 'theirs');
    await blobs.put(elsewhere, '[]', { contentType: 'application/json' });
    for (const reader of readers(new PaperSets(blobs))) {
      expectInvalidInput(await reader.run({ blobKey: elsewhere, count: 0 }, `${reader.step}-other-run`), reader.step, new RegExp(`is not a list of run ${RUN_ID}`));
    }
  });

  it('given a store that fails to answer (not the command’s fault), then the handler throws and the command is redelivered', async () => {
    class FailingStore extends LocalFsBlobStore {
      override get(): Promise<never> {
        return Promise.reject(new Error('EIO: the disk is unhappy'));
      }
    }
    const failing = new FailingStore({ rootDir: dir, shareSecret: 'secret', shareBaseUrl: 'http://127.0.0.1/v1/shared' });
    for (const reader of readers(new PaperSets(failing))) {
      await expect(reader.run({ blobKey: paperSetKey(RUN_ID, 'any'), count: 1 }, `${reader.step}-io`)).rejects.toThrow('EIO');
    }
  });
});
