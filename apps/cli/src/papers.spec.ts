import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decisionOf, sourceNotes } from './papers.js';

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
});

describe('openpaw papers: what each source could not search itself', () => {
  it('says per source what was applied locally and what could not be applied', () => {
    const report = { source: 'arxiv' as const, status: 'ok' as const, count: 3, totalAvailable: 3, durationMs: 5, error: null };
    expect(sourceNotes({ ...report, appliedLocally: ['NOT'], notApplied: ['language de: arxiv records carry no language'] })).toEqual(['arxiv: NOT applied locally', 'arxiv: not applied: language de: arxiv records carry no language']);
    expect(sourceNotes(report)).toEqual([]);
  });
});
