import { solveProblem, warmUpEngine } from '@openpaw/maths';
import { parse } from 'mathjs';
import { renderRichText } from './math-markup.js';
import { renderSolutionHtml, type SolutionDocument } from './solution-html.js';

const base: SolutionDocument = {
  problem: '2x + 3 = 7',
  subject: 'algebra',
  steps: [
    { title: 'Write the equation', detail: '2 x + 3 = 7' },
    { title: 'Isolate x', detail: 'Subtract 3 from both sides: \\(2x = 4\\), then divide by 2.' },
  ],
  finalAnswer: 'x = 2',
  model: 'local/deterministic',
  promptVersion: 'solve-v1',
};

/** Every attribute name and every element name in the document. */
function markup(html: string): { tags: string[]; attributes: string[] } {
  const tags = [...html.matchAll(/<([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase());
  const attributes = [...html.matchAll(/<[a-zA-Z][\w-]*((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/g)].flatMap((m) =>
    [...(m[1] ?? '').matchAll(/\s([^\s=>]+)/g)].map((a) => a[1]!.toLowerCase()),
  );
  return { tags, attributes };
}

describe('renderSolutionHtml', () => {
  it('is one self-contained document with the problem, every step in order and the final answer', async () => {
    const html = await renderSolutionHtml(base);
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'`);
    const steps = [...html.matchAll(/<li class="step" data-step="(\d+)"><h3 class="step-title">([^<]*)<\/h3>/g)];
    expect(steps.map((m) => [m[1], m[2]])).toEqual([
      ['1', 'Write the equation'],
      ['2', 'Isolate x'],
    ]);
    expect(html).toMatch(/<section class="final-answer" data-final-answer>[\s\S]*<math>[\s\S]*<mi>x<\/mi><mo>=<\/mo><mn>2<\/mn>/);
    expect(html).toContain('Subtract 3 from both sides: <span class="katex"><math>');
    expect(html).toContain('local/deterministic');
  });

  it('has no script, no external reference and no way to load anything', async () => {
    const html = await renderSolutionHtml(base);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/:\/\//);
    expect(html).not.toMatch(/url\(|@import|@font-face/i);
    const { tags, attributes } = markup(html);
    expect(tags.filter((t) => ['script', 'link', 'img', 'iframe', 'object', 'embed', 'a', 'svg', 'base', 'form'].includes(t))).toEqual([]);
    expect(attributes.filter((a) => a.startsWith('on') || ['src', 'href', 'srcset', 'action', 'style'].includes(a))).toEqual([]);
  });

  it('escapes injected HTML and neutralises everything active in model text', async () => {
    const html = await renderSolutionHtml({
      ...base,
      problem: 'Solve <img src=x onerror=alert(1)> 2x = 4',
      subject: '<b>algebra</b>',
      steps: [
        { title: '<script>alert("title")</script>', detail: 'See <a href="https://evil.example/x">here</a> and javascript:alert(1) or <iframe src="//evil"></iframe>' },
        { title: 'Math trap', detail: '\\(\\href{javascript:alert(1)}{x} \\url{https://evil.example} \\htmlClass{a}{b} \\includegraphics{http://x/y.png}\\)' },
        { title: 'Style trap', detail: '<style>body{background:url(https://evil.example/t.png)}</style>"><svg onload=alert(1)>' },
      ],
      finalAnswer: '</p><script>alert(2)</script>',
      model: 'evil"model',
    });
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/https?:\/\//i);
    const { tags, attributes } = markup(html);
    expect(tags.filter((t) => ['script', 'img', 'iframe', 'a', 'svg', 'b'].includes(t))).toEqual([]);
    expect(tags.filter((t) => t === 'style')).toEqual(['style']); // only the document's own stylesheet
    expect(attributes.filter((a) => a.startsWith('on') || ['src', 'href'].includes(a))).toEqual([]);
    // The text is still there for the reader, as text.
    expect(html).toContain('&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;');
    expect(html).toContain('Solve &lt;img src=x onerror=alert(1)&gt; 2x = 4');
    expect(html).toContain('https&#58;//evil.example/x');
    expect(html).toContain('evil&quot;model');
  });

  it('renders the same document to the same bytes', async () => {
    expect(await renderSolutionHtml(base)).toBe(await renderSolutionHtml({ ...base, steps: [...base.steps] }));
  });
});

describe('renderRichText', () => {
  it('renders LaTeX in every delimiter form to MathML, without namespace URL or TeX annotation', () => {
    for (const text of ['\\(\\frac{7}{3}\\)', '$\\frac{7}{3}$', '$$\\frac{7}{3}$$', '\\[\\frac{7}{3}\\]']) {
      const html = renderRichText(text, parse);
      expect(html).toContain('<mfrac><mn>7</mn><mn>3</mn></mfrac>');
      expect(html).not.toContain('xmlns');
      expect(html).not.toContain('annotation');
    }
    expect(renderRichText('\\[x\\]', parse)).toContain('display="block"');
  });

  it('renders a field that is one plain-text formula as MathML, and leaves prose as text', () => {
    expect(renderRichText('12 * (3 + 4)', parse)).toMatch(/<math>.*<mn>12<\/mn><mo>⋅<\/mo>/);
    expect(renderRichText('x = 7/3', parse)).toContain('<mfrac><mn>7</mn><mn>3</mn></mfrac>');
    expect(renderRichText('2x = 4, so x = 4 / 2 = 2.', parse)).toBe('2x = 4, so x = 4 / 2 = 2.');
    expect(renderRichText('every real x', parse)).toBe('every real x');
    expect(renderRichText('84', parse)).toBe('84');
  });

  it('keeps dollar amounts as text', () => {
    expect(renderRichText('It costs $5 and $10.', parse)).toBe('It costs $5 and $10.');
  });

  it('shows TeX it cannot render as escaped text', () => {
    expect(renderRichText('\\(<b>\\)', parse)).not.toContain('<b>');
  });
});

describe('an absolute-value inequality solved by the maths engine, on the page (issue 24)', () => {
  beforeAll(warmUpEngine);

  it.each([
    ['Solve |2x + 1| >= 3', 'x ≤ -2 or x ≥ 1', '<mo>∪</mo>'],
    ['Solve |x - 3| < 5', '-2 &lt; x &lt; 8', '<mo stretchy="false">(</mo><mo>−</mo><mn>2</mn><mo separator="true">,</mo><mn>8</mn><mo stretchy="false">)</mo>'],
  ])('%j: each case, the set in interval notation, and the set as the final answer', async (problem, finalAnswer, notation) => {
    const outcome = solveProblem(problem);
    if (!outcome.solved) throw new Error(outcome.reason);
    const html = await renderSolutionHtml({ ...base, problem, steps: outcome.steps, finalAnswer: outcome.finalAnswer });
    expect(/<section class="final-answer" data-final-answer>[\s\S]*?<p class="answer">([^<]*)<\/p>/.exec(html)?.[1]).toBe(finalAnswer);
    expect([...html.matchAll(/<h3 class="step-title">Case /g)]).toHaveLength(2);
    expect(html.slice(html.indexOf('Combine the cases'))).toContain(notation);
  });
});
