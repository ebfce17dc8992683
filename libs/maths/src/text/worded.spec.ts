import fc from 'fast-check';
import { solveProblem } from '../engine.js';
import { readWorded } from './worded.js';
import { warmUpEngine } from '../bounded/warm-up.js';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

const mathsOf = (text: string): string | undefined => {
  const result = readWorded(text);
  return result !== undefined && 'read' in result ? result.read.maths : undefined;
};

describe('worded maths (issue 24)', () => {
  it.each([
    ['Five more than twice a number is seventeen; find the number', '(2 * n) + 5 = 17'],
    ['Multiply twelve by thirteen', '12 * 13'],
    ['A number times eleven equals eighty-eight. What is the number?', 'n * 11 = 88'],
    ['Two less than a number is twenty-eight. Find the number.', 'n - 2 = 28'],
    ['What is the sum of one hundred and five and 3?', '105 + 3'],
    ['What is half of twenty-six?', '1/2 * 26'],
    ['What is 7 squared?', '7^2'],
    ['Subtract nine from forty', '40 - 9'],
    ['The product of a number and 4 is equal to 36. What is the number?', 'n * 4 = 36'],
    ['A quarter of a number is 5', '1/4 * n = 5'],
    ['Three times a number makes twelve. Find the number.', '3 * n = 12'],
    ['A number divided by four equals seven', 'n / 4 = 7'],
    ['Ten minus a number is three', '10 - n = 3'],
    ['Two to the power of a number is thirty-two', '2^n = 32'],
  ])('%j reads as %s', (text, maths) => {
    expect(mathsOf(text)).toBe(maths);
  });

  it.each([
    ['Five more than twice a number is seventeen; find the number', 'the number is 6'],
    ['I think of a number. Twice the number is 14. What is the number?', 'the number is 7'],
    ['The square of a number is forty-nine. Find the number.', 'the number is -7 or 7'],
    ['Multiply twelve by thirteen', '156'],
    ['What is the product of six and seven?', '42'],
  ])('%j is answered in the asker\'s terms: %s', (text, answer) => {
    const outcome = solveProblem(text);
    expect(outcome.solved && outcome.finalAnswer).toBe(answer);
    expect(outcome.solved && outcome.steps[0]?.title).toBe('The problem as read');
  });

  it('given operator words whose grouping the wording leaves open, then the problem is refused as ambiguous, not guessed', () => {
    for (const text of ['What is two plus three times four?', 'Three times a number minus four is eleven. Find the number.', 'What is two plus three squared?']) {
      const outcome = solveProblem(text);
      expect({ text, solved: outcome.solved, reason: outcome.solved ? '' : outcome.reason }).toEqual({ text, solved: false, reason: expect.stringContaining('ambiguous') as string });
    }
  });

  it('given an expression in the unknown with nothing it equals, or prose it does not read, then it does not claim the text', () => {
    expect(readWorded('What is a number plus 5?')).toBeUndefined();
    expect(readWorded('A farmer has 12 sheep and buys 5 more. How many sheep does he have?')).toBeUndefined();
    expect(solveProblem('What is a number plus 5?').solved).toBe(false);
  });

  it('given generated junk words inside or next to a worded problem, then it is never answered', () => {
    let state = 7;
    const rng = (): number => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
    const junk = ['qz', 'lo', 'fo', 'sy', 'blorp', 'wq', 'xx', 'abc'];
    const templates = [
      'Five more than twice a number is seventeen; find the number',
      'Multiply twelve by thirteen',
      'What is the sum of 8 and 9?',
      'A number times eleven equals eighty-eight. What is the number?',
      'Two less than a number is twenty-eight. Find the number.',
    ];
    for (let i = 0; i < 150; i++) {
      const words = templates[Math.floor(rng() * templates.length)]!.split(' ');
      const at = Math.floor(rng() * (words.length + 1));
      const word = junk[Math.floor(rng() * junk.length)]!;
      const text = [...words.slice(0, at), word, ...words.slice(at)].join(' ');
      expect({ text, solved: solveProblem(text).solved }).toEqual({ text, solved: false });
    }
  });
});

describe('number words that do not form one number', () => {
  // Each was summed into one number and answered: "one two three plus one" was 7, "seven eight plus
  // one" 16, "twenty twenty plus one" 41, "two thousand thousand plus one" 3001, "one hundred hundred
  // plus one" 10001, "five hundred five hundred plus one" 50501.
  it.each(['What is one two three plus one?', 'What is seven eight plus one?', 'What is twenty twenty plus one?', 'What is two thousand thousand plus one?', 'What is one hundred hundred plus one?', 'What is five hundred five hundred plus one?'])(
    'given %j, then it is not answered',
    (problem) => {
      expect(solveProblem(problem)).toMatchObject({ solved: false });
    },
  );

  it.each([
    ['What is twenty one plus one?', '22'],
    ['What is one hundred and five plus one?', '106'],
    ['What is nine hundred ninety nine thousand plus one?', '999001'],
    ['What is two thousand and six plus one?', '2007'],
  ])('given %j (one number each), then it is answered %s', (problem, answer) => {
    expect(solveProblem(problem)).toMatchObject({ solved: true, finalAnswer: answer });
  });
});

describe('a power of a power in words', () => {
  // "ten to the power of ten to the power of ten" was read (10^10)^10 and answered with 101 digits;
  // 10^(10^10) is as good a reading.
  it.each(['What is ten to the power of ten to the power of ten?', 'What is two squared squared?', 'What is three cubed to the power of two?'])('given %j, then it is refused as ambiguous', (problem) => {
    expect(solveProblem(problem)).toMatchObject({ solved: false, reason: expect.stringMatching(/^the wording is ambiguous: .* after a power/) as unknown });
  });

  it('given one power, then it is read', () => {
    expect(solveProblem('What is two to the power of ten?')).toMatchObject({ solved: true, finalAnswer: '1024' });
    expect(solveProblem('What is five squared?')).toMatchObject({ solved: true, finalAnswer: '25' });
  });
});

describe('"the sum of … and …" followed by an operator word (issue 24)', () => {
  // "What is the sum of 3 and 4 times 2?" was answered 11 (3 + 4·2); without a comma the wording leaves the grouping open.
  it.each(['What is the sum of 3 and 4 times 2?', 'What is the product of 3 and 4 plus 2?', 'What is the difference between ten and four divided by two?'])('given %j, then it is refused as ambiguous', (problem) => {
    expect(solveProblem(problem)).toMatchObject({ solved: false, reason: expect.stringContaining('ambiguous') as unknown });
  });

  it.each([
    ['What is the sum of 3 and 4?', '7'],
    ['What is the sum of 3 times 4 and 2?', '14'],
    ['Multiply the sum of 3 and 4 by 2', '14'],
    ['The sum of twice a number and three is seventeen; find the number', 'the number is 7'],
  ])('given %j, then the grouping is read: %j', (problem, answer) => {
    expect(solveProblem(problem)).toMatchObject({ solved: true, finalAnswer: answer });
  });
});

describe('a comma closes what came before it into one operand (issue 24)', () => {
  // Each was refused while the reader dropped commas ("the product of 4 and a number minus 3" leaves the grouping open).
  it.each([
    ['The product of 4 and a number, minus 3, is 9', '(4 * n) - 3 = 9', 'the number is 3'],
    ['What is the sum of 3 and 4, times 2?', '(3 + 4) * 2', '14'],
    ['What is 3 plus 4, times 2?', '(3 + 4) * 2', '14'],
    ['Three times a number, minus four, is eleven. Find the number.', '(3 * n) - 4 = 11', 'the number is 5'],
    ['Five more than a number, times 2, is 16', '(n + 5) * 2 = 16', 'the number is 3'],
    ['The sum of a number and 7, divided by 2, is 10', '(n + 7) / 2 = 10', 'the number is 13'],
    ['The difference between a number and 3, squared, is 16', '(n - 3)^2 = 16', 'the number is -1 or 7'],
    ['Half of a number, plus 3, is 10', '(1/2 * n) + 3 = 10', 'the number is 14'],
  ])('given %j, then it reads %s and is answered %j', (problem, maths, answer) => {
    expect(mathsOf(problem)).toBe(maths);
    expect(solveProblem(problem)).toMatchObject({ solved: true, finalAnswer: answer });
  });

  // The comma closes either the chain before it or one phrase; after nested phrases it could close any of them.
  it.each([
    'What is the sum of 2 and the product of 3 and 4, times 5?',
    'What is 2 plus the sum of 3 and 4, times 5?',
    'Twice the sum of a number and 3, minus 2, is 10',
    'Three less than the product of 4 and a number, times 2, is 18',
    'What is two to the power of the sum of 1 and 2, plus 1?',
  ])('given %j, then it is refused as ambiguous', (problem) => {
    expect(solveProblem(problem)).toMatchObject({ solved: false, reason: expect.stringContaining('ambiguous') as unknown });
  });

  it('given a comma that groups nothing (a list, a thousands separator, before "is"), then it is not read as grouping', () => {
    expect(readWorded('What is the sum of 3, 4 and 5?')).toBeUndefined();
    expect(mathsOf('What is 1,000 plus 1?')).toBe('1000 + 1');
    expect(mathsOf('Five more than twice a number, is seventeen; find the number')).toBe('(2 * n) + 5 = 17');
  });

  type Step = { readonly words: string; readonly apply: (value: bigint) => bigint };
  const small = fc.integer({ min: 1, max: 12 });
  const opening = fc.oneof(
    fc.tuple(small, small).map(([a, b]): Step => ({ words: `the sum of ${a} and ${b}`, apply: () => BigInt(a + b) })),
    fc.tuple(small, small).map(([a, b]): Step => ({ words: `the product of ${a} and ${b}`, apply: () => BigInt(a * b) })),
    fc.tuple(small, small).map(([a, b]): Step => ({ words: `the difference between ${a} and ${b}`, apply: () => BigInt(a - b) })),
    fc.tuple(small, small).map(([a, b]): Step => ({ words: `${a} plus ${b}`, apply: () => BigInt(a + b) })),
    small.map((a): Step => ({ words: `twice ${a}`, apply: () => BigInt(2 * a) })),
  );
  const then = fc.oneof(
    small.map((b): Step => ({ words: `plus ${b}`, apply: (v) => v + BigInt(b) })),
    small.map((b): Step => ({ words: `minus ${b}`, apply: (v) => v - BigInt(b) })),
    small.map((b): Step => ({ words: `times ${b}`, apply: (v) => v * BigInt(b) })),
    fc.constant<Step>({ words: 'squared', apply: (v) => v * v }),
  );

  it('given generated wordings with grouping commas, then each is answered with the value the commas say, left to right', () => {
    fc.assert(
      fc.property(opening, fc.array(then, { minLength: 1, maxLength: 3 }), (first, rest) => {
        const problem = `What is ${[first, ...rest].map((s) => s.words).join(', ')}?`;
        const value = rest.reduce((v, step) => step.apply(v), first.apply(0n));
        expect({ problem, outcome: solveProblem(problem) }).toMatchObject({ problem, outcome: { solved: true, finalAnswer: String(value) } });
      }),
      { seed: 24, numRuns: 150 },
    );
  });

  it('given generated equations in a number with grouping commas, then the number found is the one the wording was built from', () => {
    fc.assert(
      fc.property(fc.integer({ min: -9, max: 20 }), small, fc.array(then.filter((s) => s.words !== 'squared'), { minLength: 1, maxLength: 3 }), fc.constantFrom('sum', 'product'), (n, b, rest, kind) => {
        const first = kind === 'sum' ? `the sum of a number and ${b}` : `the product of ${b} and a number`;
        const start = kind === 'sum' ? BigInt(n + b) : BigInt(n * b);
        const value = rest.reduce((v, step) => step.apply(v), start);
        const problem = `${[first, ...rest.map((s) => s.words)].join(', ')}, is ${value}. Find the number.`;
        expect({ problem, outcome: solveProblem(problem) }).toMatchObject({ problem, outcome: { solved: true, finalAnswer: `the number is ${n}` } });
      }),
      { seed: 24, numRuns: 150 },
    );
  });
});
