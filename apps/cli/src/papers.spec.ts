import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Checkpoint, decisionOf, showCheckpoint, sourceNotes } from './papers.js';

const numbered = ['doi:10.1/a', 'doi:10.1/b', 'arxiv:2101.00001'];

describe('openpaw papers: reading a checkpoint decision from one answer line', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'openpaw-papers-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('approves, rejects with a note, and edits a strategy from a JSON file at checkpoint 1', async () => {
    expect(await decisionOf('a', 'strategy_confirmation', [], dir)).toEqual({ action: 'approve' });
    expect(await decisionOf('r only clinical trials', 'strategy_confirmation', [], dir)).toEqual({ action: 'reject', note: 'only clinical trials' });
    await writeFile(join(dir, 'strategy.json'), JSON.stringify({ queries: [{ keywords: ['gnn'], booleanQuery: 'gnn' }], sources: ['arxiv'], filters: {} }));
    expect(await decisionOf('e strategy.json', 'strategy_confirmation', [], dir)).toEqual({
      action: 'edit',
      revisedData: { queries: [{ keywords: ['gnn'], booleanQuery: 'gnn' }], sources: ['arxiv'], filters: {} },
    });
  });

  it('marks papers by their number at checkpoint 2: kept on approve, relevant / never again / feedback on edit', async () => {
    expect(await decisionOf('a +1,3', 'result_review', numbered, dir)).toEqual({ action: 'approve', revisedData: { markedRelevant: ['doi:10.1/a', 'arxiv:2101.00001'] } });
    expect(await decisionOf('e +1 -2 more on proteins', 'result_review', numbered, dir)).toEqual({
      action: 'edit',
      revisedData: { markedRelevant: ['doi:10.1/a'], markedIrrelevant: ['doi:10.1/b'], freeText: 'more on proteins' },
    });
    expect(await decisionOf('reject too theoretical', 'result_review', numbered, dir)).toEqual({ action: 'reject', note: 'too theoretical' });
  });

  it('refuses what is not a decision, a paper number that is not shown, and a rejection without why', async () => {
    await expect(decisionOf('maybe', 'result_review', numbered, dir)).rejects.toThrow(/not a decision/);
    await expect(decisionOf('e +7', 'result_review', numbered, dir)).rejects.toThrow(/no paper numbered 7/);
    await expect(decisionOf('r', 'result_review', numbered, dir)).rejects.toThrow(/say why/);
  });

  it('refuses to keep (+n) a paper the review lists as unmarkable, naming it, and lets it be marked not relevant (-n)', async () => {
    const unmarkable = new Set(['arxiv:2101.00001']);
    await expect(decisionOf('a +1,3', 'result_review', numbered, dir, unmarkable)).rejects.toThrow(/^\+3: this review cannot keep paper 3 .*mark it -3/);
    await expect(decisionOf('e +3', 'result_review', numbered, dir, unmarkable)).rejects.toThrow(/cannot keep paper 3/);
    expect(await decisionOf('e +1 -3', 'result_review', numbered, dir, unmarkable)).toEqual({ action: 'edit', revisedData: { markedRelevant: ['doi:10.1/a'], markedIrrelevant: ['arxiv:2101.00001'], freeText: null } });
    expect(await decisionOf('a +1', 'result_review', numbered, dir, unmarkable)).toEqual({ action: 'approve', revisedData: { markedRelevant: ['doi:10.1/a'] } });
  });
});

describe('openpaw papers: showing an open review', () => {
  const paper = (id: string, title: string) => ({ id, title, year: 2020, venue: null, relevanceScore: 0.5, relevanceReason: '' });
  const review = (unmarkablePaperIds?: string[]) =>
    ({
      kind: 'result_review',
      checkpointId: '00000000-0000-4000-8000-000000000001',
      runId: '00000000-0000-4000-8000-000000000002',
      iteration: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      payload: {
        iteration: 1,
        accumulatedPapers: [],
        collection: { papers: [paper('doi:10.1/a', 'Kept paper'), paper('doi:10.1/b', 'Late paper')], metadata: { sourceReports: [], cuts: { papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 } }, facets: { themes: [] } },
        ...(unmarkablePaperIds === undefined ? {} : { unmarkablePaperIds }),
      },
      // The fields showCheckpoint reads; the rest of a collection (facets' other lists, scores' parts) plays no part here.
    }) as unknown as Checkpoint;

  it('marks each paper the review cannot keep, and says how many and why', () => {
    const lines: string[] = [];
    showCheckpoint(review(['doi:10.1/b']), { stdout: (line) => lines.push(line) });
    expect(lines.find((line) => line.includes('Kept paper'))).not.toContain('×');
    expect(lines.find((line) => line.includes('Late paper'))).toMatch(/2\. \[0\.50\] Late paper \(2020\) × cannot be kept here: -2 only$/);
    expect(lines).toContain('  × 1 of these papers cannot be kept by this review (+n is refused for them; -n works): they are beyond the papers its message carried');
  });

  it('marks nothing when every paper can be kept', () => {
    const lines: string[] = [];
    showCheckpoint(review(), { stdout: (line) => lines.push(line) });
    expect(lines.join('\n')).not.toContain('×');
  });
});

describe('openpaw papers: what each source could not search itself', () => {
  it('says per source what was applied locally and what could not be applied', () => {
    const report = { source: 'arxiv' as const, status: 'ok' as const, count: 3, totalAvailable: 3, durationMs: 5, error: null };
    expect(sourceNotes({ ...report, appliedLocally: ['NOT'], notApplied: ['language de: arxiv records carry no language'] })).toEqual(['arxiv: NOT applied locally', 'arxiv: not applied: language de: arxiv records carry no language']);
    expect(sourceNotes(report)).toEqual([]);
  });

  it('says how many results the filter applied locally dropped, and how many of them had no abstract', () => {
    const report = { source: 'crossref' as const, status: 'ok' as const, count: 3, totalAvailable: 90, durationMs: 5, error: null, appliedLocally: ['AND/OR (the source ranks by the words only)'] };
    expect(sourceNotes({ ...report, droppedLocally: { count: 7, withoutAbstract: 4 } })).toEqual([
      'crossref: AND/OR (the source ranks by the words only) applied locally',
      'crossref: 7 results dropped by the filter applied locally (4 had no abstract: only the title was matched)',
    ]);
    expect(sourceNotes({ ...report, droppedLocally: { count: 1, withoutAbstract: 1 } })[1]).toBe('crossref: 1 result dropped by the filter applied locally (it had no abstract: only the title was matched)');
    expect(sourceNotes({ ...report, droppedLocally: { count: 0, withoutAbstract: 0 } })).toHaveLength(1);
  });
});
