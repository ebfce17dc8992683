import katex from 'katex';
import { finalAnswerOf } from './final-answer.js';

/** A solution page's answer as apps/solve writes it: text, or KaTeX MathML without its TeX annotation. */
function page(answer: string): string {
  return `<main class="solution"><ol class="steps"><li class="step" data-step="1"><div class="step-detail">1/2</div></li></ol>
<section class="final-answer" data-final-answer>
<h2>Final answer</h2>
<p class="answer">${answer}</p>
</section></main>`;
}
const mathml = (tex: string): string => katex.renderToString(tex, { output: 'mathml', throwOnError: false }).replace(/<annotation\b[^>]*>[\s\S]*?<\/annotation>/g, '');

describe('finalAnswerOf (the answer line of `openpaw solve`)', () => {
  it('reads a flat formula as written, relations spaced', () => {
    expect(finalAnswerOf(page(mathml('n = 7')))).toBe('n = 7');
    expect(finalAnswerOf(page(mathml('x \\leq -3')))).toBe('x ≤ −3');
    expect(finalAnswerOf(page(mathml('2x+3')))).toBe('2x+3');
  });

  it('reads text, its entities decoded and controls dropped', () => {
    expect(finalAnswerOf(page('x &lt; 3 or x &gt; 5 &amp; y&#58;\u001b[31m'))).toBe('x < 3 or x > 5 & y: [31m');
  });

  it('gives no answer rather than a wrong one: a fraction, a power or a root is not flattened', () => {
    for (const tex of ['x = \\frac{1}{2}', 'x^2 = 4', 'x = \\sqrt{2}', 'x_1 = 3']) expect({ tex, answer: finalAnswerOf(page(mathml(tex))) }).toEqual({ tex, answer: undefined });
  });

  it('gives none for a page without the answer markup', () => {
    expect(finalAnswerOf('<html><body><p class="answer">x = 2</p></body></html>')).toBeUndefined();
    expect(finalAnswerOf(page(''))).toBeUndefined();
  });
});
