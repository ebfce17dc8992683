import { describeEvent } from './degrees.js';

describe('openpaw degrees: the line for each stream event', () => {
  const world = { kind: 'local_demo', seed: 7, people: 24, description: 'local demo world of 24 invented people' };

  it('says a chain was found in the local demo world', () => {
    const line = describeEvent({ type: 'final', data: { path: ['Ada Stone', 'Cy Vale', 'Bea North'], confidenceMap: { bottleneck: 88, cumulative: 0.8 }, world } });
    expect(line).toBe('Found 2 degree(s) in the local demo world of 24 invented people: Ada Stone → Cy Vale → Bea North\n  weakest edge 88.0%, whole chain 80.0%');
  });

  it('says what the run spent of its budgets', () => {
    const budgets = { maxSearchCalls: 20, maxRecognitionCalls: 120, maxLlmCalls: 8, maxRuntimeMs: 300_000 };
    const used = { searchCalls: 9, recognitionCalls: 45, llmCalls: 0, imagesSkipped: 3, costUsd: 0 };
    const line = describeEvent({ type: 'final', data: { path: ['Ada Stone', 'Bea North'], confidenceMap: { bottleneck: 90, cumulative: 0.9 }, budgets, used } });
    expect(line).toBe('Found 1 degree(s): Ada Stone → Bea North\n  weakest edge 90.0%, whole chain 90.0%\n  spent 9/20 searches, 45/120 recognitions, 0/8 LLM calls');
  });

  it('lists the names the local demo world knows when a name is not among them', () => {
    const line = describeEvent({ type: 'no_path', data: { message: '"Taylor Swift" is not in the local demo world of 24 invented people; it knows Ada Stone, Bea North.', reason: 'unknown_person', knownNames: ['Ada Stone', 'Bea North'] } });
    expect(line).toBe('No path: "Taylor Swift" is not in the local demo world of 24 invented people; it knows Ada Stone, Bea North. (unknown_person)\n  names it knows: Ada Stone, Bea North');
  });

  it('never shows partial evidence as a link', () => {
    const data = { partial: true, from: 'Ada Stone', to: 'Bea North', imageUrl: 'https://img/3', sourcePageUrl: null, confidenceFrom: null, confidenceTo: 97, images: 3 };
    expect(describeEvent({ type: 'evidence', data })).toBe('· not a link: 3 photo(s) without both (best: Ada Stone not recognised, Bea North 97.0%)\n    https://img/3');
  });

  it('gives an error its reason, and a cancel its words', () => {
    expect(describeEvent({ type: 'error', data: { code: 'step_failed', reason: 'search_unavailable', message: 'A search or recognition step failed; the investigation stopped.' } })).toBe(
      'Error: A search or recognition step failed; the investigation stopped. (search_unavailable)',
    );
    expect(describeEvent({ type: 'cancelled', data: { message: 'The investigation was cancelled.' } })).toBe('Cancelled: The investigation was cancelled.');
  });
});
