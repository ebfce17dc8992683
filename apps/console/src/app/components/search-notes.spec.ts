import { cutNotes, localDropNotes, originNote } from './search-notes.js';

describe("a paper search's notes", () => {
  it("says where checkpoint 1's strategy came from", () => {
    expect(originNote({ origin: 'planner_model', model: 'openai/gpt-4o-mini', method: 'm' })).toBe('Proposed by the planner model openai/gpt-4o-mini.');
    expect(originNote({ origin: 'local_rules', model: 'local/rules', method: 'm' })).toMatch(/local rules: no planner model is configured/);
    expect(originNote({ origin: 'user_edit', model: null, method: 'edited' })).toBe('Your edit at checkpoint 1.');
    expect(originNote(undefined)).toBeUndefined();
  });

  it('says what limits cut, and nothing when nothing was cut', () => {
    expect(cutNotes({ papersLeftOut: 40, abstractsShortened: 1, authorListsShortened: 0 }, true)).toEqual([
      '40 papers were found but left out: a message carries only so many papers.',
      '1 abstract was shortened.',
      'The papers shown are shortened to fit one message: abstracts are left out.',
    ]);
    expect(cutNotes({ papersLeftOut: 0, abstractsShortened: 0, authorListsShortened: 0 }, false)).toEqual([]);
    expect(cutNotes(undefined, false)).toEqual([]);
  });

  it('says first when the stored list is past its retention: what is shown is only what the view kept', () => {
    expect(cutNotes({ papersLeftOut: 180, abstractsShortened: 0, authorListsShortened: 0 }, false, { reason: 'gone', storedPapers: 300 })).toEqual([
      "The search's stored list of 300 papers was deleted after its retention period: only the papers its view kept are shown. Search again for the whole list.",
      '180 papers were found but left out: a message carries only so many papers.',
    ]);
  });

  it("says what a source's local filter dropped, in the same words as the CLI and the contracts", () => {
    // The same sentences as the contracts' describeLocalDrops (pinned in search-sources.spec and the CLI's papers.spec).
    expect(localDropNotes({ source: 'crossref', droppedLocally: { count: 5, withoutAbstract: 2 } })).toEqual(['crossref: 5 results dropped by the filter applied locally (2 had no abstract: only the title was matched)']);
    expect(localDropNotes({ source: 'crossref', droppedLocally: { count: 1, withoutAbstract: 1 } })).toEqual(['crossref: 1 result dropped by the filter applied locally (it had no abstract: only the title was matched)']);
    expect(localDropNotes({ source: 'serpapi_scholar', droppedLocally: { count: 2, withoutAbstract: 0 } })).toEqual(['serpapi_scholar: 2 results dropped by the filter applied locally']);
    expect(localDropNotes({ source: 'crossref', droppedLocally: { count: 0, withoutAbstract: 0 } })).toEqual([]);
    expect(localDropNotes({ source: 'openalex', droppedLocally: undefined })).toEqual([]);
  });
});
