import { normaliseText } from './text-normalisation.js';

describe('normaliseText', () => {
  const sameProblem: readonly (readonly string[])[] = [
    [
      'Solve for x: 3x + 7 = 22',
      'solve for x: 3x+7=22',
      'SOLVE FOR X: 3X + 7 = 22.',
      '  Solve   for x :\t3x +7= 22 \n',
      'Solve for x: 3x\u00a0+\u00a07 = 22',
      'Ｓｏｌｖｅ ｆｏｒ ｘ： ３ｘ ＋ ７ ＝ ２２',
      'Solve for\u200b x: 3x + 7 = 22',
    ],
    ['Compute 6 × 7 − 5 ÷ 2', 'compute 6*7-5/2', 'Compute 6 · 7 – 5 / 2', 'Compute 6 ⋅ 7 − 5 ∕ 2', 'Compute 6 ∗ 7 — 5 ÷ 2'],
    ['Find x² + 2x + 1', 'find x^2+2x+1', 'Find x ^ 2 + 2x + 1', 'Find x**2 + 2x + 1', 'Find x^(2) + 2x + 1'],
    ['Simplify x⁻¹ · y²³', 'simplify x^-1*y^23', 'Simplify x^(-1) * y^23'],
    ['Add ½ and ¾', 'add 1/2 and 3/4', 'Add 1⁄2 and 3⁄4', 'Add 1 / 2 and 3 / 4'],
    ['A recipe needs 2½ cups', 'a recipe needs 2 1/2 cups'],
    ['Is 3 ≤ x ≥ 1 and x ≠ 2?', 'is 3<=x>=1 and x!=2?', 'Is 3 <= x >= 1 and x != 2 ?'],
    ['The data: 4, 8, 15, 16, 23, 42', 'the data: 4,8,15,16,23,42', 'The data : 4 ,8 , 15, 16 ,23, 42'],
    ['Water is H₂O and x₁ + x₂ = 5', 'water is h2o and x1+x2=5'],
    ['“Straße” is a word', '"strasse" is a word', '"STRASSE" is a word'],
    ['Evaluate ( x + 1 )( x − 1 )', 'evaluate (x+1)(x-1)'],
    ['What is 15 % of 80?', 'what is 15% of 80?'],
  ];

  it.each(sameProblem.map((group) => [group[0] ?? '', group] as const))('normalises every copy of "%s" alike', (_first, group) => {
    const forms = new Set(group.map(normaliseText));
    expect([...forms]).toHaveLength(1);
  });

  it('produces the documented canonical forms', () => {
    expect(normaliseText('Solve for x: 3x + 7 = 22.')).toBe('solve for x: 3x+7=22');
    expect(normaliseText('Find x² + 2x + 1')).toBe('find x^2+2x+1');
    expect(normaliseText('Add ½ and ¾')).toBe('add 1/2 and 3/4');
    expect(normaliseText('Compute 6 × 7 − 5 ÷ 2')).toBe('compute 6*7-5/2');
    expect(normaliseText('eⁱˣ')).toBe('e^(ix)');
    expect(normaliseText('√2 · π')).toBe('sqrt2*pi');
  });

  it('keeps what changes the problem', () => {
    expect(normaliseText('3x + 7 = 22')).not.toBe(normaliseText('3x + 7 = 23'));
    expect(normaliseText('x^(ab)')).not.toBe(normaliseText('x^ab'));
    expect(normaliseText('The price is 1,000 dollars')).toBe('the price is 1,000 dollars');
    expect(normaliseText('list 1, 000')).toBe('list 1, 000');
    expect(normaliseText('x₁')).not.toBe(normaliseText('x¹'));
  });

  it('reduces whitespace-only and invisible text to the empty string', () => {
    expect(normaliseText(' \n\t\u200b ')).toBe('');
  });
});
