import { fallbackSelection, parseSelection, type SelectionInput, selectionPrompt } from './selection.js';

const input: SelectionInput = {
  target: { name: 'Zora Venmont' },
  frontier: { name: 'Ada Belwick', celebrityId: 'c-ada' },
  candidates: [
    { person: { name: 'Hugo Dunfield', celebrityId: 'c-hugo' }, count: 1, bestConfWithFrontier: 97 },
    { person: { name: 'Kira Solvale', celebrityId: 'c-kira' }, count: 3, bestConfWithFrontier: 97 },
    { person: { name: 'Olga Torley', celebrityId: 'c-olga' }, count: 5, bestConfWithFrontier: 91 },
  ],
  hopsRemaining: 4,
  budgetsRemaining: { searchCalls: 10, recognitionCalls: 60, llmCalls: 5 },
};

describe('S3 selection', () => {
  it('falls back deterministically: highest best confidence, then count', () => {
    expect(fallbackSelection(input)).toEqual({
      nextCandidates: [{ name: 'Kira Solvale', celebrityId: 'c-kira' }],
      searchQueries: ['Ada Belwick Kira Solvale', 'Ada Belwick Kira Solvale event'],
      narration: 'Trying an expansion via Kira Solvale…',
    });
    expect(fallbackSelection({ ...input, candidates: [...input.candidates].reverse() })).toEqual(fallbackSelection(input));
  });

  it('accepts a strict JSON choice by id or exact name', () => {
    const reply = JSON.stringify({ nextCandidates: ['c-olga', 'Hugo Dunfield'], searchQueries: ['Ada Belwick Olga Torley gala'], narration: 'Olga has the most shared photos.' });
    expect(parseSelection(reply, input)).toEqual({
      ok: true,
      selection: {
        nextCandidates: [
          { name: 'Olga Torley', celebrityId: 'c-olga' },
          { name: 'Hugo Dunfield', celebrityId: 'c-hugo' },
        ],
        searchQueries: ['Ada Belwick Olga Torley gala'],
        narration: 'Olga has the most shared photos.',
      },
    });
    expect(parseSelection('```json\n{"nextCandidates":["c-hugo"],"searchQueries":[],"narration":"x"}\n```', input)).toMatchObject({
      ok: true,
      selection: { searchQueries: ['Ada Belwick Hugo Dunfield', 'Ada Belwick Hugo Dunfield event'] },
    });
  });

  it.each([
    ['prose', 'I would pick Kira.', 'invalid_json'],
    ['JSON with text after it', '{"nextCandidates":["c-kira"],"searchQueries":[],"narration":""} thanks!', 'invalid_json'],
    ['missing field', '{"nextCandidates":["c-kira"],"narration":""}', 'invalid_json'],
    ['extra field', '{"nextCandidates":["c-kira"],"searchQueries":[],"narration":"","why":"x"}', 'invalid_json'],
    ['three candidates', '{"nextCandidates":["c-kira","c-olga","c-hugo"],"searchQueries":[],"narration":""}', 'invalid_json'],
    ['an unknown person', '{"nextCandidates":["Kanye West"],"searchQueries":[],"narration":""}', 'invalid_choice'],
  ])('refuses %s', (_what, reply, reason) => {
    expect(parseSelection(reply, input)).toMatchObject({ ok: false, reason });
  });

  it('puts the spec inputs in the prompt, candidates in fallback order', () => {
    const [system, user] = selectionPrompt(input);
    expect(system!.content).toContain('"nextCandidates"');
    expect(user!.content).toContain('Target: Zora Venmont');
    expect(user!.content).toContain('Hops remaining: 4');
    expect(user!.content.indexOf('c-kira')).toBeLessThan(user!.content.indexOf('c-hugo'));
  });
});
