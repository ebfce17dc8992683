import { researchLaneConcurrency } from './research-lane-concurrency.js';

describe('research lane concurrency', () => {
  it('given no settings, then it is the providers\' default call limits summed (16 + 8 + 8 + 4)', () => {
    expect(researchLaneConcurrency({})).toBe(36);
  });

  it('given OPENPAW_LLM_CONCURRENCY, then it follows the providers\' limits as set', () => {
    expect(researchLaneConcurrency({ OPENPAW_LLM_CONCURRENCY: 'openai=2,anthropic=1' })).toBe(2 + 1 + 8 + 4);
  });
});
