import { createOcrReader, extractMathsSignature, ingestProblem, normaliseText } from '../../apps/ingestion/src/public-api.js';
import { katexProblem, type RenderedKatexProblem, renderKatexProblems } from './support/katex-problems.js';

/**
 * Maths structure read from KaTeX renders (issue 25), through ingestion's image path with PP-OCRv4: a
 * root's reach is placed from the ink (the radical's bar over its radicand), never guessed; a root whose
 * bar spans an operator is read whole or refused, never read as the shorter root.
 */
describe('reading KaTeX-rendered roots and stacked fractions', () => {
  const reader = createOcrReader({ reader: 'pp-ocr', workers: 1, timeoutMs: 60_000 });
  const fetch = (): Promise<never> => Promise.reject(new Error('no URLs here'));
  let rendered: RenderedKatexProblem[];

  beforeAll(async () => {
    const root = (id: number, tex: string, typed: string, font: RenderedKatexProblem['font'], sizePx: number) =>
      katexProblem({ id, family: 'root', font, sizePx, padding: 20, prompt: 'Evaluate', tex, typed, html: null });
    const fraction = (id: number, prompt: string, tex: string, typed: string, font: RenderedKatexProblem['font'], sizePx: number) =>
      katexProblem({ id, family: 'fraction', font, sizePx, padding: 20, prompt, tex, typed, html: null });
    rendered = await renderKatexProblems([
      root(0, '\\sqrt{64} - 20', 'sqrt(64) - 20', 'DejaVu Serif', 36),
      root(1, '\\sqrt{49} + 17', 'sqrt(49) + 17', 'Liberation Sans', 28),
      root(2, '\\sqrt{36 + 13}', 'sqrt(36 + 13)', 'DejaVu Sans', 32),
      root(3, '\\sqrt{36} + 13', 'sqrt(36) + 13', 'DejaVu Sans', 32),
      fraction(4, 'Add the fractions:', '\\frac{1}{2} + \\frac{6}{7}', '1/2 + 6/7', 'Liberation Sans', 38),
      fraction(5, 'Add the fractions:', '\\frac{5}{6} + \\frac{2}{3}', '5/6 + 2/3', 'DejaVu Serif', 30),
      fraction(6, 'Simplify', '\\frac{x + 1}{2} + 3', '(x + 1)/2 + 3', 'DejaVu Sans', 34),
    ]);
  }, 120_000);
  afterAll(() => reader.close());

  const hashOf = (text: string): string | undefined => extractMathsSignature(normaliseText(text)).signature?.hash;
  const read = async (problem: RenderedKatexProblem) => ingestProblem({ kind: 'image', bytes: problem.png }, { reader, fetch });

  it('reads a root over a number as sqrt(n), the bar placed from the ink', async () => {
    for (const problem of rendered.slice(0, 2)) {
      const outcome = await read(problem);
      expect(outcome).toMatchObject({ status: 'normalised' });
      if (outcome.status !== 'normalised') continue;
      expect(hashOf(outcome.signature.normalisedText)).toBe(hashOf(problem.truth));
    }
  }, 60_000);

  it('never reads a root as reaching less or further than its bar: √(36 + 13) and √36 + 13 keep their own maths', async () => {
    for (const problem of rendered.slice(2, 4)) {
      const outcome = await read(problem);
      if (outcome.status === 'normalised') expect(hashOf(outcome.signature.normalisedText)).toBe(hashOf(problem.truth));
    }
    expect(hashOf(rendered[2]!.truth)).not.toBe(hashOf(rendered[3]!.truth));
  }, 60_000);

  it('reads a stacked fraction as (numerator)/(denominator), laid inline from its bar', async () => {
    for (const problem of rendered.slice(4, 6)) {
      const outcome = await read(problem);
      expect(outcome).toMatchObject({ status: 'normalised' });
      if (outcome.status !== 'normalised') continue;
      expect(hashOf(outcome.signature.normalisedText)).toBe(hashOf(problem.truth));
    }
  }, 60_000);

  it('never reads a numerator with an operator as a shorter one: (x + 1)/2 is read whole or refused, not x + 1/2', async () => {
    const outcome = await read(rendered[6]!);
    if (outcome.status === 'normalised') expect(hashOf(outcome.signature.normalisedText)).toBe(hashOf(rendered[6]!.truth));
    expect(hashOf(rendered[6]!.truth)).not.toBe(hashOf('Simplify x + 1/2 + 3'));
  }, 60_000);
});
