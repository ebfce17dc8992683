import { normaliseText } from '../text-normalisation.js';
import { readMaths } from '@openpaw/maths';
import { canonicalForm, canonOfStatement } from './canonical-form.js';
import { extractMathsSignature } from './maths-signature.js';
import { warmUpEngine } from '@openpaw/maths';

// The engine's first solve in a process does its start-up; production runs it first with a start budget (warm-up.ts).
beforeAll(warmUpEngine);

/** The signature of a problem as typed: normalised as ingestion normalises it, then extracted. */
const sig = (text: string) => extractMathsSignature(normaliseText(text)).signature;
const hashOf = (text: string): string | undefined => sig(text)?.hash;

describe('maths signature', () => {
  describe('the same problem, written differently, has one signature', () => {
    it.each([
      ['Solve 4x − 9 = 23', 'What is x when 4x - 9 = 23?'],
      ['Solve 4x − 9 = 23', 'Find the value of x if 23 = -9 + 4x.'],
      ['Solve 4x − 9 = 23', 'Solve 4·x − 9 = 23'],
      ['Solve 4x − 9 = 23', 'Solve 4 × x - 9 = 23'],
      ['Solve 4x − 9 = 23', 'Solve x*4-9=23'],
      ['Solve x + 3 = 7', 'If x plus 3 equals 7, what is x?'],
      ['Solve 2x + 3 = 11', '2 times x plus 3 is equal to 11. Find x.'],
      ['Compute 12 × 7', 'What is 7 times 12?'],
      ['Evaluate 2^10 + 3^5', 'What is 3⁵ + 2¹⁰?'],
      ['Evaluate 2^10 + 3^5', 'Work out 3**5 + 2**10'],
      ['Solve the system x + y = 10 and x − y = 2', 'Solve x - y = 2 and y + x = 10'],
      ['Solve 3x + 2y = 11', 'Solve 2y + 3x = 11'],
      ['Solve x^2 + 5x + 6 = 0', 'Solve x squared plus 5x plus 6 equals 0'],
      ['Work out 2,000 + 350', 'Work out 350 + 2000'],
      ['Solve 2(x + 1) = 8', 'Solve 2 ( x+1 ) = 8'],
      ['Solve 0.50x = 3', 'Solve 0.5x = 3'],
      ['Solve x / 4 = 3', 'Solve x ÷ 4 = 3'],
      ['Solve 5 - 2x = 1', 'Solve -2x + 5 = 1'],
      ['Solve 3x > 12', 'Solve 12 < 3x'],
    ])('%s ≡ %s', (a, b) => {
      expect(hashOf(a)).toBeDefined();
      expect(hashOf(b)).toBe(hashOf(a));
    });
  });

  describe('different problems never share a signature', () => {
    it.each([
      ['Solve 4x − 9 = 23', 'Solve 4x − 9 = 24'],
      ['Solve 4x − 9 = 23', 'Solve 4x − 10 = 22'],
      ['Solve 4x − 9 = 23', 'Solve 4x + 9 = 23'],
      ['Solve 2x + 3 = 7', 'Solve 3x + 2 = 7'],
      ['Solve 5y + 2 = 17', 'Solve 15y + 2 = 17'],
      ['Evaluate 2^10 + 3^5', 'Evaluate 2710 + 375'],
      ['Evaluate 2^10 + 3^5', 'Evaluate 10^2 + 5^3'],
      ['Compute 12 / 4', 'Compute 4 / 12'],
      ['Solve x - 3 = 5', 'Solve 3 - x = 5'],
      ['Factor x^2 + 5x + 6', 'Expand x^2 + 5x + 6'],
      ['Solve 3x > 12', 'Solve 3x < 12'],
      ['Solve x^2 = 9', 'Solve x^3 = 9'],
    ])('%s ≠ %s', (a, b) => {
      expect(hashOf(a)).toBeDefined();
      expect(hashOf(b)).toBeDefined();
      expect(hashOf(b)).not.toBe(hashOf(a));
    });
  });

  describe('the key holds the intent the engine reads, not the words that said it (maths-sig/v8)', () => {
    // v7 keyed each pair apart: the words saying the intent, or naming the kind of maths given, or
    // instructions a reading ran together, were prose of the key.
    it.each([
      ['work out 28/7-29', 'workout 28/7-29'],
      ['Find the roots of x^2 + 3x - 4 = 0.', 'Solve the quadratic equation x^2 + 3x - 4 = 0'],
      ['For which p is 5p + 2 < 17?', 'Solve 5p + 2 < 17'],
      ['Expand (x + 1)^3', 'Multiply out (x + 1)^3.'],
      ['Simplify √252', 'Write √252 in simplest surd form.'],
      ['How many cm are in 2.5 m?', 'Express 2.5 m in cm'],
      ['Solve the system 2x + y = 5, x - y = 1', 'Solve simultaneously: 2x + y = 5 and x - y = 1'],
      // Letters written together in a formula are a product (v7 had no key: "at" was prose).
      ['Make t the subject of v = u + at', 'Make t the subject of v = u + a*t'],
      // maths-sig/v9: a hyphenated number word as an operand, or opening the maths, is its number (v8
      // keyed "twenty-one - x = 5" as "-x = 5" with the prose "twenty-one").
      ['Solve x + 2 = twenty-one', 'Solve x + 2 = 21'],
      ['twenty-one - x = 5', '21 - x = 5'],
      ['Solve ten - x = 5', 'Solve 10 - x = 5'],
      // maths-sig/v10: a comma followed by an operator word closes what came before it (v9 dropped the
      // comma: the first was refused, the second keyed as 2n + 5 = 16).
      ['The product of 4 and a number, minus 3, is 9', 'Solve 4k - 3 = 9'],
      ['Five more than a number, times 2, is 16', 'Solve (k + 5)*2 = 16'],
    ])('%s ≡ %s', (a, b) => {
      expect(hashOf(a)).toBeDefined();
      expect(hashOf(b)).toBe(hashOf(a));
    });

    // The answers differ: "≈ 15.87" is not "6√7", 250 cm is not 2500 mm. v7 keyed the first pair alike.
    it.each([
      ['Evaluate √252', 'Simplify √252'],
      ['What is sqrt(252)?', 'Write √252 in simplest surd form.'],
      ['How many cm are in 2.5 m?', 'How many mm are in 2.5 m?'],
      ['Convert 3/4 to a decimal.', 'Write 3/4 as a percentage.'],
      ['Find the limit of (2x^2 + 1)/(x^2 - 3) as x approaches infinity', 'Simplify (2x^2 + 1)/(x^2 - 3)'],
      ['Integrate x*y dx', 'Integrate x*y dy'],
      ['Find the area of a rectangle 4 x 6', 'Find the perimeter of a rectangle 4 x 6'],
      ['Make t the subject of v = u + at', 'Make v the subject of v = u + at'],
      ['twenty-one - x = 5', '- x = 5'],
      ['Solve x + 2 = twenty-one', 'Solve x + 2 = 12'],
      ['Five more than a number, times 2, is 16', 'Solve 2k + 5 = 16'],
    ])('%s ≠ %s', (a, b) => {
      expect(hashOf(a)).toBeDefined();
      expect(hashOf(b)).toBeDefined();
      expect(hashOf(b)).not.toBe(hashOf(a));
    });
  });

  describe('a renaming of the unknowns shares the key, through a bijection that covers the question (maths-sig/v3)', () => {
    /** The asker's name of each stored unknown: `stored.unknowns[i] ↦ asker.unknowns[i]`. */
    const bijection = (stored: string, asker: string): Record<string, string> | undefined => {
      const [from, to] = [sig(stored), sig(asker)];
      if (from === undefined || to === undefined || from.hash !== to.hash) return undefined;
      return Object.fromEntries(from.unknowns.map((name, i) => [name, to.unknowns[i] ?? '?']));
    };

    it.each([
      ['Solve x + y = 10, x - y = 2', 'Solve x + y = 10, y - x = 2', { x: 'y', y: 'x' }],
      ['Solve 4x − 9 = 23', 'Solve 4k − 9 = 23', { x: 'k' }],
      ['Solve 3x + 2y = 11', 'Solve 2b + 3a = 11', { x: 'a', y: 'b' }],
      ['If a = 2b and a + b = 9, find a', 'If q = 2p and p + q = 9, find q', { a: 'q', b: 'p' }],
      ['Solve 2x + 5 = 17', 'Five more than twice a number is seventeen; find the number', { x: 'n' }],
      ['Make x the subject of y = 2x + 3', 'Make q the subject of p = 2q + 3', { x: 'q', y: 'p' }],
      ['Express y in terms of x: y = 2x + 3', 'Express b in terms of a: b = 3 + 2a', { x: 'a', y: 'b' }],
    ])('%s ↦ %s', (stored, asker, expected) => {
      expect(bijection(stored, asker)).toEqual(expected);
    });

    it.each([
      ['If a = 2b and a + b = 9, find a', 'If b = 2a and a + b = 9, find a'],
      ['If a = 2b and a + b = 9, find a', 'If a = 2b and a + b = 9, find b'],
      ['Solve x + y = 10, x - y = 2', 'Solve x + y = 10, x - y = 3'],
      // maths-sig/v7: a rearrangement asks for its unknown by role (v6 keyed each pair alike).
      ['Make x the subject of y = 2x + 3', 'Make y the subject of y = 2x + 3'],
      ['Rearrange y = 2x + 3 to make x the subject', 'Rearrange y = 2x + 3 to make y the subject'],
      ['Express x in terms of y: y = 2x + 3', 'Express y in terms of x: y = 2x + 3'],
      ['Write x in terms of y, given y = 2x + 3', 'Write y in terms of x, given y = 2x + 3'],
      ['x + y = 10 and x - y = 2; x = ?', 'x + y = 10 and x - y = 2; y = ?'],
    ])('a changed target or number: %s ≠ %s', (a, b) => {
      expect(hashOf(a)).toBeDefined();
      expect(hashOf(b)).toBeDefined();
      expect(hashOf(b)).not.toBe(hashOf(a));
    });

    it('carries no hash of an older version: a key computed by an older reading is never matched (maths-sig/v11)', () => {
      const signature = sig('Solve x + y = 10, x - y = 2');
      expect(signature?.version).toBe('maths-sig/v11');
      expect(signature).not.toHaveProperty('previousHash');
    });

    it('numbers tied unknowns the same way whatever order they are written in ("x*y = 21, y - x = 4" ≡ "y*x = 21, y - x = 4")', () => {
      expect(hashOf('Solve y*x = 21, y - x = 4')).toBe(hashOf('Solve x*y = 21, y - x = 4'));
      expect(bijection('Solve x*y = 21, y - x = 4', 'Solve y*x = 21, y - x = 4')).toEqual({ x: 'x', y: 'y' });
    });

    it('carries the unknowns in canonical order and the asked-for one', () => {
      expect(sig('If b = 2a and a + b = 9, find a')).toMatchObject({ asks: 'a' });
      expect(sig('Solve x + y = 10, y - x = 2')?.unknowns).toEqual(['x', 'y']);
      expect(sig('Solve x + y = 10, x - y = 2')?.unknowns).toEqual(['y', 'x']);
    });
  });

  it('given a letter run touching the maths ("solve fory: sy-4=2y+11"), then there is no signature and the run is reported', () => {
    const extraction = extractMathsSignature(normaliseText('solve fory: sy-4=2y+11'));
    expect(extraction.signature).toBeUndefined();
    expect(extraction.unparsed).toEqual(['"sy" sits in the maths and is neither a number, an unknown nor an operator the engine reads']);
  });

  it('given a letter or sign the maths does not read inside it ("11α-37<18", "7c ± 16=98"), then there is no signature, never one of part of the maths', () => {
    expect(extractMathsSignature(normaliseText('Solve for x: 11α - 37 < 18')).signature).toBeUndefined();
    expect(extractMathsSignature(normaliseText('Solve for x: 11α - 37 < 18')).unparsed).toEqual([expect.stringMatching(/^"α" sits in the maths/)]);
    expect(extractMathsSignature(normaliseText('Solve for x: 7c ± 16 = 98')).unparsed).toEqual([expect.stringMatching(/^"±" sits in the maths/)]);
  });

  it('given a Cyrillic lookalike of a Latin unknown ("2х + 1 = 7"), then it is signed as the engine reads it, never as the maths around it ("1 = 7")', () => {
    expect(sig('Solve 2х + 1 = 7')?.hash).toBe(hashOf('Solve 2x + 1 = 7'));
    expect(sig('Solve 2х + 1 = 7')?.hash).not.toBe(hashOf('Solve 5х + 1 = 7'));
  });

  it('given a comma between digits that may be a decimal comma ("2,5 + 1,25"), then there is no signature, never one of the sum 5 + 1', () => {
    expect(extractMathsSignature(normaliseText('Evaluate 2,5 + 1,25')).signature).toBeUndefined();
    expect(extractMathsSignature(normaliseText('Evaluate 2,5 + 1,25')).unparsed).toEqual([expect.stringContaining('"2,5" may be a decimal comma')]);
    expect(sig('Solve x + y = 10, 2x - y = 5')?.canonical).toContain(';');
  });

  it('given a sign the old lexer did not read ("5!", "log_2"), then the key is the engine\'s reading of it, never the maths around it', () => {
    // The signature's own lexer signed "5! + 3*2" and "4! + 3*2" as 3*2, and "log_2(x) = 3" as 2x = 3; later it refused them.
    expect(sig('Evaluate 5! + 3*2')?.canonical).toBe('(+ (* 2 3) (factorial 5))');
    expect(hashOf('Evaluate 5! + 3*2')).not.toBe(hashOf('Evaluate 4! + 3*2'));
    expect(sig('Solve log_2(x) = 3')?.canonical).toBe('(= (log v0 2) 3)');
    expect(hashOf('Solve log_2(x) = 3')).not.toBe(hashOf('Solve 2x = 3'));
    expect(hashOf('Question #3: solve 2x + 1 = 7')).toBe(hashOf('Solve 2x + 1 = 7.'));
  });

  it('given an absolute value |a|, then it is signed whole, as the engine reads it ("|x - 3| = 5" is not "x - 3", nor "|x - 3| = 7")', () => {
    expect(sig('Solve |x - 3| = 5')?.canonical).toBe('(= (abs (+ -3 v0)) 5)');
    expect(hashOf('Solve |x - 3| = 5')).not.toBe(hashOf('Solve |x - 3| = 7'));
    expect(hashOf('Solve |x - 3| = 5')).not.toBe(hashOf('Solve |x - 3| < 5'));
  });

  it('given a rounding instruction, then it is part of the key ("22/7 to 2 d.p." asks for another answer than 22/7)', () => {
    expect(hashOf('Evaluate 22/7 to 2 d.p.')).not.toBe(hashOf('Evaluate 22/7'));
    expect(hashOf('Evaluate 22/7 to 2 d.p.')).not.toBe(hashOf('Evaluate 22/7 to 3 d.p.'));
    expect(hashOf('Evaluate 22/7 to 2 d.p.')).toBe(hashOf('Evaluate 22/7 to 2 decimal places'));
  });

  it('canonicalises operand order, implicit multiplication and unknown names', () => {
    expect(sig('Solve 23 = 4y - 9')?.canonical).toBe('(= (+ (* 4 v0) -9) 23)');
    expect(sig('Simplify 2(x + 1) + 3x')?.canonical).toBe('(+ (* (+ 1 v0) 2) (* 3 v0))');
  });

  it('reads the intent: equations are solved however asked, numeric expressions evaluated', () => {
    expect(sig('What is x when 4x - 9 = 23?')?.intent).toBe('solve');
    expect(sig('Simplify 2^10 + 3^5')?.intent).toBe('evaluate');
    expect(sig('Factorise x^2 + 5x + 6')?.intent).toBe('factor');
    expect(sig('Expand (x + 2)(x + 3)')?.intent).toBe('expand');
    expect(sig('Simplify 2(x + 1) + 3x')?.intent).toBe('simplify');
  });

  it('lists the numbers of the maths, sorted, in one spelling', () => {
    expect(sig('Solve 4x − 9 = 23.50')?.numbers).toEqual(['23.5', '4', '9']);
  });

  it('finds no maths in prose, and keeps prose letters out of the maths', () => {
    expect(sig('A car travels 60 km in 2 hours. What is its average speed?')).toBeUndefined();
    expect(sig('How many times does a clock chime?')).toBeUndefined();
    expect(sig('Let a be a number: solve 2a + 1 = 5')?.canonical).toBe('(= (+ (* 2 v0) 1) 5)');
  });

  it('reports runs that look like maths but do not parse', () => {
    const extraction = extractMathsSignature(normaliseText('solve 4x - (9 = 23'));
    expect(extraction.unparsed.length).toBeGreaterThan(0);
  });

  it('carries the weakest reading confidence of OCR tokens, and 1 for typed text', () => {
    expect(sig('Solve 4x - 9 = 23')?.confidence).toBe(1);
    const read = extractMathsSignature(normaliseText('Solve 4x - 9 = 23'), [
      { text: '4x', confidence: 0.96 },
      { text: '23', confidence: 0.71 },
    ]).signature;
    expect(read?.confidence).toBeCloseTo(0.71);
    expect(read?.tokens).toHaveLength(2);
  });
});

describe('the times sign typed (or read) as x', () => {
  it('given a lone x spaced between operands, one bracketed ("(3/4) x (5/6)", × as OCR reads it), then it is multiplication; "3x(x + 1)" keeps its unknown', () => {
    expect(hashOf('Simplify (3/4) x (5/6) ÷ 7')).toBe(hashOf('Simplify (3/4) × (5/6) ÷ 7'));
    expect(hashOf('Evaluate (5 + 1) x 4')).toBe(hashOf('Evaluate (5 + 1) × 4'));
    expect(hashOf('Expand 3x(x + 1)')).not.toBe(hashOf('Expand 3 × (x + 1)'));
  });

  it('reads an x between two numbers as multiplication', () => {
    expect(hashOf('Evaluate 17 x 9 + 22')).toBe(hashOf('Evaluate 17 × 9 + 22'));
    expect(sig('Solve 4x + 9 = 23')?.canonical).toBe('(= (+ (* 4 v0) 9) 23)');
  });
});

describe('worded maths in the signature (issue 24: one reader for a hit and a solve)', () => {
  it('given rewordings of one worded problem, then they share a signature that asks for the number', () => {
    const a = sig('Five more than twice a number is seventeen; find the number');
    const b = sig('Twice a number plus five equals 17. What is the number?');
    expect(a?.hash).toBeDefined();
    expect(b?.hash).toBe(a?.hash);
    expect(a?.asks).toBe('n');
  });

  it('given one number changed or the operation changed, then the signature differs', () => {
    const base = hashOf('Five more than twice a number is seventeen; find the number');
    expect(hashOf('Five more than twice a number is nineteen; find the number')).not.toBe(base);
    expect(hashOf('Five less than twice a number is seventeen; find the number')).not.toBe(base);
    expect(hashOf('Multiply twelve by thirteen')).not.toBe(hashOf('Multiply twelve by fourteen'));
  });

  it('given ambiguous wording, then there is no signature', () => {
    expect(sig('What is two plus three times four?')).toBeUndefined();
  });
});

describe('maths-sig/v5: the reading is not cut at "%" or a trailing "!", and prose operator words stay prose', () => {
  it('given "10 % 3 + 1" or "(3!)!", then there is no key (v4 keyed them as 3 + 1 and 3!, the keys of other problems)', () => {
    expect(hashOf('Evaluate 3 + 1')).toBeDefined();
    expect(hashOf('Evaluate 10 % 3 + 1')).toBeUndefined();
    expect(hashOf('Evaluate (3!)!')).toBeUndefined();
  });

  it('given "times" in prose ("2 times a day"), then it is not keyed as a product; between operands it is', () => {
    expect(sig('A tablet is taken 2 times a day')?.canonical).not.toBe(sig('Evaluate 2a')?.canonical);
    expect(hashOf('Solve 3 times x = 12')).toBe(hashOf('Solve 3*x = 12'));
  });
});

describe('maths-sig/v6: number words that form no one number, and numerals past a double, have no key', () => {
  it('given "one two three plus one", then there is no key (v5 keyed it as 6 + 1, the key of "six plus one")', () => {
    expect(hashOf('What is six plus one?')).toBeDefined();
    expect(hashOf('What is one two three plus one?')).toBeUndefined();
  });

  it('given a numeral a double cannot hold, then there is no key (v5 keyed x + 9007199254740993 = 0 as ...992)', () => {
    expect(hashOf('Solve x + 900719925474 = 0')).toBeDefined();
    expect(hashOf('Solve x + 9007199254740993 = 0')).toBeUndefined();
  });
});

describe('one parser: the key is the engine\'s reading (maths-sig/v4)', () => {
  /** The canonical form of the maths as the engine reads it, or undefined when the engine refuses it. */
  const engineCanonical = (text: string): string | undefined => {
    const read = readMaths(normaliseText(text));
    if ('refused' in read) return undefined;
    const statements = read.read.rounding === undefined ? read.read.statements : read.read.exactStatements;
    return statements.length === 0 ? undefined : canonicalForm(statements.map(canonOfStatement));
  };

  it.each([
    // Where the signature's own lexer read other maths than the engine: "√16" and "log 100" as unknowns (v0 + 3 was the key of "y + 3").
    ['Evaluate √16 + 3', '(+ (sqrt 16) 3)'],
    ['Evaluate log 100 + 1', '(+ (log10 100) 1)'],
    ['Evaluate 5! + 3*2', '(+ (* 2 3) (factorial 5))'],
    ['Solve log_2(x) = 3', '(= (log v0 2) 3)'],
    ['Solve 2х + 1 = 7', '(= (+ (* 2 v0) 1) 7)'],
    ['Solve |x - 3| = 5', '(= (abs (+ -3 v0)) 5)'],
    ['Evaluate 2 + 3 x 4', '(+ (* 3 4) 2)'],
    ['Work out 2,000 + 350', '(+ 2000 350)'],
    ['Solve 3x = 10 to 2 d.p.', '(= (* 3 v0) 10)'],
  ])('%s is keyed as the engine reads it: %s', (text, canonical) => {
    expect(sig(text)?.canonical).toBe(canonical);
    expect(engineCanonical(text)).toBe(canonical);
  });

  it('given a misreading the old lexer keyed as other maths ("√16 + 3" as v0 + 3), then it never shares a key with that maths', () => {
    expect(hashOf('Evaluate √16 + 3')).not.toBe(hashOf('Evaluate y + 3'));
    expect(hashOf('Evaluate log 100 + 1')).not.toBe(hashOf('Evaluate y + 1'));
  });

  it.each(['Solve 2e+1=7', 'multiply by + 2 = 17', 'Solve 2x + 1 = 7 +', 'Find x such that x = 3 mod 5', 'Evaluate 2,5 + 1,25', 'solve fory: sy-4=2y+11'])(
    'given maths the engine refuses (%s), then there is no key',
    (text) => {
      expect(engineCanonical(text)).toBeUndefined();
      expect(sig(text)).toBeUndefined();
    },
  );

  it('given a decimal comma the engine reads ("2,5x + 1 = 6" as 2.5x), then the key is of 2.5x, not of 5x + 1 = 6', () => {
    expect(extractMathsSignature('solve 2,5x+1=6').signature?.canonical).toBe('(= (+ (* 2.5 v0) 1) 6)');
  });

  it('given a number past what a double holds exactly, then there is no key (two such numbers would share one)', () => {
    expect(sig('Evaluate 12345678901234567891 + 1')).toBeUndefined();
    expect(sig('Evaluate 12345678901234567 + 1')).toBeUndefined();
  });
});

describe('the prose around the maths is part of the key when it says more than an instruction', () => {
  it('given one maths asked about different things ("the area of a rectangle 4 x 6" / "its perimeter"), then the keys differ', () => {
    expect(hashOf('Find the area of a rectangle 4 x 6')).toBeDefined();
    expect(hashOf('Find the perimeter of a rectangle 4 x 6')).not.toBe(hashOf('Find the area of a rectangle 4 x 6'));
    expect(hashOf('Find the area of a rectangle 4 x 6')).not.toBe(hashOf('Evaluate 4 x 6'));
  });

  it('given only instructions around the maths, then rewordings share the key', () => {
    expect(hashOf('What is x when 4x - 9 = 23?')).toBe(hashOf('Solve 4x − 9 = 23'));
    expect(hashOf('Question #3: solve 2x + 1 = 7')).toBe(hashOf('Find the value of x if 2x + 1 = 7.'));
    expect(hashOf('Work out 3 × 4 to 2 decimal places')).toBe(hashOf('Calculate 3 × 4, correct to 2 d.p.'));
  });
});
