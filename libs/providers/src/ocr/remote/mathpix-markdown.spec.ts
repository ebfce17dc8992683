import { mathpixLineText } from './mathpix-markdown.js';

describe('mathpixLineText (Mathpix Markdown → plain maths)', () => {
  it.each([
    ['Solve for \\( y \\): \\( 5 y-4=2 y+11 \\)', 'Solve for y: 5y-4=2y+11'],
    ['\\( 2 x^{2}+3=11 \\)', '2x^2+3=11'],
    ['\\( x^{2 n+1} \\)', 'x^(2n+1)'],
    ['Work out \\( \\frac{3}{4}+\\frac{1}{6} \\)', 'Work out 3/4+1/6'],
    ['\\( \\frac{x+1}{2}=5 \\)', '(x+1)/2=5'],
    ['\\( \\dfrac12 \\)', '1/2'],
    ['Simplify \\( \\sqrt{48} \\)', 'Simplify √(48)'],
    ['\\( \\sqrt{36+31} \\)', '√(36+31)'],
    ['\\( 12 \\times 13 \\div 4 \\)', '12×13÷4'],
    ['\\( 3 \\cdot 4 \\)', '3·4'],
    ['\\( 2 x+3 \\leq 11 \\)', '2x+3≤11'],
    ['\\( x \\neq 0 \\)', 'x≠0'],
    ['\\( \\left(x+2\\right)\\left(x-3\\right) \\)', '(x+2)(x-3)'],
    ['\\( \\left|2 x-1\\right|=5 \\)', '|2x-1|=5'],
    ['An angle of \\( 30^{\\circ} \\)', 'An angle of 30°'],
    ['\\( 25 \\% \\) of 80', '25% of 80'],
    ['\\( \\sin x=0.5 \\)', 'sin x=0.5'],
    ['\\( 2 \\pi r \\)', '2πr'],
    ['\\( \\text{ area }=\\pi r^{2} \\)', 'area =πr^2'],
    ['\\[ x+1=2 \\]', 'x+1=2'],
    ['$x+1=2$ and $$y=3$$', 'x+1=2 and y=3'],
    ['Find the mean of 3, 5 and 10.', 'Find the mean of 3, 5 and 10.'],
  ])('writes %j as %j', (markdown, plain) => {
    expect(mathpixLineText(markdown)).toEqual({ text: plain });
  });

  it.each([
    ['\\( \\int_{0}^{1} x d x \\)', 'the LaTeX command \\int'],
    ['\\( x_{1}+x_{2} \\)', 'a subscript'],
    ['\\( \\sqrt[3]{27} \\)', 'an nth root'],
    ['\\( \\begin{array}{l} x \\end{array} \\)', 'the LaTeX command \\begin'],
    ['\\( \\frac{1}{2 \\)', 'a group opened and never closed ("}" missing)'],
    ['\\( x+1 } \\)', 'an unmatched "}"'],
    ['Solve \\( 2 x=4', 'a maths span opened with \\( and never closed'],
    ['\\( \\frac{1} \\)', 'a command with its argument missing'],
    ['\\( \\left\\{ x \\right\\} \\)', '\\left before "\\"'],
  ])('names what it cannot write in %j (%s), keeping the line as read', (markdown, unread) => {
    expect(mathpixLineText(markdown)).toEqual({ text: markdown, unread });
  });
});
