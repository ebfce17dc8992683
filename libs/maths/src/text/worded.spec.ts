import { solveProblem } from '../engine.js';
import { readWorded } from './worded.js';

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
  // Was answered 11 (3 + 4·2); the comma says (3 + 4)·2 = 14: the wording leaves the grouping open.
  it.each(['What is the sum of 3 and 4, times 2?', 'What is the product of 3 and 4 plus 2?', 'What is the difference between ten and four divided by two?'])('given %j, then it is refused as ambiguous', (problem) => {
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
