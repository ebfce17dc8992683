/**
 * Worded maths read deterministically: number words, operator words and relation words become the
 * maths the rest of the engine reads ("Five more than twice a number is seventeen" → "2 * n + 5 = 17",
 * asking for the number). A problem is claimed only when every word of every clause is read; a
 * clause with a word the reader does not know, or with operator words whose grouping the wording
 * leaves open ("two plus three times four"), is not guessed at: the text is not worded maths (or, for
 * the ambiguous case, refused naming the ambiguity).
 */
import { spend } from '../core/budget.js';
import { tokens } from './number-words.js';

const FRACTION_OF: Readonly<Record<string, string>> = { half: '1/2', third: '1/3', quarter: '1/4', fifth: '1/5', tenth: '1/10' };
/** Names of the one unknown a worded problem may have. */
const UNKNOWN_NAMES = [['a', 'number'], ['the', 'number'], ['a', 'certain', 'number'], ['some', 'number'], ['this', 'number'], ['the', 'unknown', 'number']] as const;
export const WORDED_UNKNOWN = 'n';
/** A clause is read word by word against the reader's phrases: measured ~20 steps (2 µs) a character. */
const WORDED_STEPS_PER_CHARACTER = 20;

/** What the reader made of a worded problem. */
export interface WordedReading {
  /** The maths in mathjs syntax: an equation in n, or an expression of numbers. */
  readonly maths: string;
  readonly kind: 'equation' | 'evaluate';
  /** Each clause as read, for the solution's first step ("five more than twice a number is seventeen → 2n + 5 = 17"). */
  readonly clauses: readonly { readonly words: string; readonly maths: string }[];
}

export type WordedResult = { readonly read: WordedReading } | { readonly ambiguous: string } | undefined;

class Ambiguous extends Error {}

type Node = { readonly text: string; readonly atomic: boolean; readonly hasUnknown: boolean };
const atom = (text: string, hasUnknown = false): Node => ({ text, atomic: true, hasUnknown });
const group = (node: Node): string => (node.atomic ? node.text : `(${node.text})`);
const combine = (a: Node, op: string, b: Node): Node => ({ text: `${group(a)} ${op} ${group(b)}`, atomic: false, hasUnknown: a.hasUnknown || b.hasUnknown });

/** Words that continue a chain with an operation on what came before ("plus 3", "squared"). */
const OPERATOR_WORDS: readonly (readonly string[])[] = [
  ['plus'], ['added', 'to'], ['minus'], ['take', 'away'], ['times'], ['multiplied', 'by'], ['divided', 'by'], ['over'], ['squared'], ['cubed'], ['to', 'the', 'power'],
];

class Reader {
  private at = 0;
  /** Phrases open around the current word: "the sum of 3 and ·", "· more than …", "twice ·". */
  private open = 0;
  /** The most phrases open where the comma at `commaAt` was met, i.e. how many the comma closes. */
  private commaAt = -1;
  private commaCloses = 0;
  constructor(private readonly words: readonly string[]) {}

  get done(): boolean {
    return this.at >= this.words.length;
  }

  /** Consumes the phrase when the next words are exactly it. */
  take(...phrase: string[]): boolean {
    if (phrase.every((w, k) => this.words[this.at + k] === w)) {
      this.at += phrase.length;
      return true;
    }
    return false;
  }

  takeAny(phrases: readonly (readonly string[])[]): boolean {
    return phrases.some((p) => this.take(...p));
  }

  /** Reads a phrase's inner part with the phrase counted open. */
  private inside<T>(read: () => T): T {
    this.open++;
    try {
      return read();
    } finally {
      this.open--;
    }
  }

  /** A comma followed by an operator word: it closes what came before into one operand ("the sum of 3 and 4, times 2"). */
  private groupingComma(): boolean {
    const next = this.at + 1;
    return this.words[this.at] === ',' && OPERATOR_WORDS.some((p) => p.every((w, k) => this.words[next + k] === w));
  }

  private number(): Node | undefined {
    const word = this.words[this.at];
    if (word !== undefined && /^-?\d+(?:\.\d+)?$/.test(word)) {
      this.at++;
      return atom(word.startsWith('-') ? `(${word})` : word);
    }
    if (this.take('negative') || this.take('minus')) {
      const inner = this.number();
      if (inner === undefined) throw new Ambiguous('"negative" must be followed by a number');
      return atom(`(-${inner.text})`);
    }
    return undefined;
  }

  /** An operand: a number, the unknown, or a phrase that builds one ("twice …", "the sum of … and …", "half of …"). */
  operand(): Node | undefined {
    if (this.takeAny(UNKNOWN_NAMES)) return atom(WORDED_UNKNOWN, true);
    if (this.take('twice') || this.take('double')) return this.scaled('2');
    if (this.take('triple') || this.take('thrice')) return this.scaled('3');
    if (this.take('half', 'of')) return this.scaled('1/2');
    for (const [word, fraction] of Object.entries(FRACTION_OF)) {
      // "one" is already the digit 1 here ("one third of" → 1 third of).
      if (this.takeAny([['a', word, 'of'], ['1', word, 'of']])) return this.scaled(fraction);
    }
    if (this.take('the', 'square', 'root', 'of') || this.take('the', 'positive', 'square', 'root', 'of')) return this.applied('sqrt');
    if (this.take('the', 'square', 'of')) return this.powered('2');
    if (this.take('the', 'cube', 'of')) return this.powered('3');
    for (const [phrase, op] of [
      [['the', 'sum', 'of'], '+'],
      [['the', 'product', 'of'], '*'],
      [['the', 'difference', 'between'], '-'],
      [['the', 'difference', 'of'], '-'],
      [['the', 'quotient', 'of'], '/'],
    ] as const) {
      if (this.take(...phrase)) {
        const first = this.inside(() => this.expression());
        if (first === undefined || !this.take('and')) return undefined;
        // "and" closes the first term; only a comma closes the second: "the sum of 3 and 4 times 2" is 3 + 4·2
        // or (3 + 4)·2, so a second term that runs on into an operator word is refused.
        const start = this.at;
        const single = this.inside(() => this.operand());
        const singleEnd = this.at;
        this.at = start;
        const second = this.inside(() => this.expression());
        if (single !== undefined && second !== undefined && this.at > singleEnd) throw new Ambiguous(`an operator word after "${phrase.join(' ')} … and …": the wording does not say whether it applies to the last term or to the whole ${phrase[1]}`);
        return second === undefined ? undefined : { ...combine(first, op, second), atomic: false };
      }
    }
    return this.number();
  }

  private scaled(factor: string): Node | undefined {
    const inner = this.inside(() => this.operand());
    return inner === undefined ? undefined : combine(atom(factor), '*', inner);
  }

  private powered(exponent: string): Node | undefined {
    const inner = this.inside(() => this.operand());
    return inner === undefined ? undefined : { text: `${group(inner)}^${exponent}`, atomic: false, hasUnknown: inner.hasUnknown };
  }

  private applied(fn: string): Node | undefined {
    const inner = this.inside(() => this.operand());
    return inner === undefined ? undefined : { text: `${fn}(${inner.text})`, atomic: true, hasUnknown: inner.hasUnknown };
  }

  /**
   * A chain of operands joined by operator words. Operators of one kind chain left to right ("a
   * plus b minus c"); additive and multiplicative words in one chain leave the grouping open and are
   * refused. "N more than X" / "N less than X" put N after X.
   *
   * A comma followed by an operator word closes what came before it into one operand: "the product of 4
   * and a number, minus 3" is 4n − 3, "3 plus 4, times 2" is (3 + 4)·2. Met inside a phrase, the comma
   * ends it and is read where the chain began; there it closes either the chain, or one phrase that is
   * the chain's only operand. A comma after phrases nested in each other ("the sum of 2 and the product
   * of 3 and 4, times 5") or after a phrase that ends a longer chain ("2 plus the sum of 3 and 4, times
   * 5") does not say how much it closes: refused.
   */
  expression(): Node | undefined {
    let left = this.operand();
    if (left === undefined) return undefined;
    const more = this.take('more', 'than') || this.take('greater', 'than');
    if (more || this.take('less', 'than') || this.take('fewer', 'than')) {
      const base = this.inside(() => this.expression());
      if (base === undefined) return undefined;
      left = combine(base, more ? '+' : '-', left);
    }
    let kinds = new Set<'additive' | 'multiplicative'>();
    // A power of a power ("ten to the power of ten to the power of ten": 10^(10^10) or (10^10)^10?) leaves
    // the grouping open: refused, as the other ambiguous chains are.
    let raised = false;
    const raise = (word: string): void => {
      if (raised) throw new Ambiguous(`"${word}" after a power: the wording does not say which power is taken first`);
      raised = true;
    };
    for (;;) {
      if (this.groupingComma()) {
        if (this.open > 0) {
          this.commaCloses = this.commaAt === this.at ? Math.max(this.commaCloses, this.open) : this.open;
          this.commaAt = this.at;
          return left;
        }
        const closes = this.commaAt === this.at ? this.commaCloses : 0;
        if (closes > 1 || (closes === 1 && (kinds.size > 0 || raised))) throw new Ambiguous('a comma after nested phrases: the wording does not say how much of what came before it closes');
        this.at++;
        kinds = new Set();
        raised = false;
        continue;
      }
      let op: string | undefined;
      if (this.take('plus') || this.take('added', 'to')) op = '+';
      else if (this.take('minus') || this.take('take', 'away')) op = '-';
      else if (this.take('times') || this.take('multiplied', 'by')) op = '*';
      else if (this.take('divided', 'by') || this.take('over')) op = '/';
      else if (this.take('squared')) {
        if (kinds.size > 0) throw new Ambiguous('"squared" after a chain of operations: the wording does not say what is squared');
        raise('squared');
        left = { text: `${group(left)}^2`, atomic: false, hasUnknown: left.hasUnknown };
        continue;
      } else if (this.take('cubed')) {
        if (kinds.size > 0) throw new Ambiguous('"cubed" after a chain of operations: the wording does not say what is cubed');
        raise('cubed');
        left = { text: `${group(left)}^3`, atomic: false, hasUnknown: left.hasUnknown };
        continue;
      } else if (this.take('to', 'the', 'power', 'of') || this.take('to', 'the', 'power')) {
        const exponent = this.inside(() => this.operand());
        if (exponent === undefined || kinds.size > 0) throw new Ambiguous('"to the power" after a chain of operations');
        raise('to the power');
        left = { text: `${group(left)}^${group(exponent)}`, atomic: false, hasUnknown: left.hasUnknown || exponent.hasUnknown };
        continue;
      }
      if (op === undefined) return left;
      kinds.add(op === '+' || op === '-' ? 'additive' : 'multiplicative');
      if (kinds.size > 1) throw new Ambiguous('additive and multiplicative operator words in one phrase: the wording does not say which is done first');
      const right = this.operand();
      if (right === undefined) return undefined;
      // "a number added to 5" is 5 + n written backwards; addition commutes, so the order does not matter.
      left = combine(left, op, right);
    }
  }
}

const RELATIONS: readonly [readonly string[], string][] = [
  [['is', 'equal', 'to'], '='],
  [['equals'], '='],
  [['is'], '='],
  [['makes'], '='],
  [['gives'], '='],
  [['results', 'in'], '='],
];
const ASKS: readonly (readonly string[])[] = [
  ['find', 'the', 'number'], ['what', 'is', 'the', 'number'], ['what', 'is', 'this', 'number'], ['find', 'this', 'number'], ['find', 'it'],
  ['work', 'out', 'the', 'number'], ['what', 'number', 'is', 'it'], ['what', 'is', 'it'], ['find', 'the', 'value', 'of', 'the', 'number'], ['determine', 'the', 'number'],
];
const INTRODUCTIONS: readonly (readonly string[])[] = [['i', 'think', 'of', 'a', 'number'], ['think', 'of', 'a', 'number']];
const LEAD_INS: readonly (readonly string[])[] = [['what', 'is'], ['what', 's'], ['find'], ['calculate'], ['work', 'out'], ['evaluate'], ['compute'], ['how', 'much', 'is'], ['give']];

type Clause = { kind: 'ask' } | { kind: 'intro' } | { kind: 'equation'; text: string; words: string } | { kind: 'evaluate'; text: string; words: string };

function readClause(words: readonly string[], raw: string): Clause | undefined {
  const whole = (phrases: readonly (readonly string[])[]): boolean => phrases.some((p) => p.length === words.length && p.every((w, k) => words[k] === w));
  if (whole(ASKS)) return { kind: 'ask' };
  if (whole(INTRODUCTIONS)) return { kind: 'intro' };
  const reader = new Reader(words);
  // Commands: "multiply A by B", "add A and B", "subtract A from B", "divide A by B", "square A".
  for (const [verb, joiner, op, reversed] of [
    ['multiply', 'by', '*', false],
    ['multiply', 'and', '*', false],
    ['divide', 'by', '/', false],
    ['add', 'to', '+', true],
    ['add', 'and', '+', false],
    ['subtract', 'from', '-', true],
  ] as const) {
    const attempt = new Reader(words);
    if (!attempt.take(verb)) continue;
    const first = attempt.expression();
    if (first === undefined || !attempt.take(joiner)) continue;
    const second = attempt.expression();
    if (second === undefined || !attempt.done || first.hasUnknown || second.hasUnknown) continue;
    return { kind: 'evaluate', text: reversed ? combine(second, op, first).text : combine(first, op, second).text, words: raw };
  }
  const lead = reader.takeAny(LEAD_INS);
  const left = reader.expression();
  if (left === undefined) return undefined;
  if (reader.done) return lead && !left.hasUnknown && /[-+*/^(]/.test(left.text) ? { kind: 'evaluate', text: left.text, words: raw } : undefined;
  if (lead) return undefined;
  // A comma before the relation groups nothing: every phrase before it ends there anyway.
  reader.take(',');
  const relation = RELATIONS.find(([phrase]) => reader.take(...phrase));
  if (relation === undefined) return undefined;
  const right = reader.expression();
  if (right === undefined || !reader.done || !(left.hasUnknown || right.hasUnknown)) return undefined;
  return { kind: 'equation', text: `${left.text} ${relation[1]} ${right.text}`, words: raw };
}

/**
 * The worded maths of a problem, when every clause is read: one equation in "the number" (possibly
 * with a clause asking for it and one introducing it), or one request to evaluate worded arithmetic.
 * Undefined when the text is not wholly worded maths; `ambiguous` when it is but its grouping is open.
 */
export function readWorded(text: string): WordedResult {
  if (/[=+*/^<>()|√]|\d\s*[a-z]\b|\b[a-z]\s*\d/i.test(text) || text.length > 400) return undefined;
  const clauses = text.split(/[.;?!:]+|,\s*(?=(?:find|what|then|so)\b)/i).map((c) => c.trim()).filter((c) => c !== '');
  const read: Clause[] = [];
  try {
    for (const raw of clauses) {
      spend(WORDED_STEPS_PER_CHARACTER * raw.length, 'reading the worded maths');
      const words = tokens(raw);
      if (words === undefined) continue;
      const clause = readClause(words, raw);
      if (clause === undefined) return undefined;
      read.push(clause);
    }
  } catch (error) {
    if (error instanceof Ambiguous) return { ambiguous: error.message };
    throw error;
  }
  const maths = read.filter((c): c is Extract<Clause, { text: string }> => c.kind === 'equation' || c.kind === 'evaluate');
  if (maths.length !== 1) return undefined;
  const [only] = maths as [Extract<Clause, { text: string }>];
  // An evaluation has nothing to ask for; an equation needs no introduction, but may have one.
  if (only.kind === 'evaluate' && read.length !== 1) return undefined;
  return { read: { maths: only.text, kind: only.kind, clauses: [{ words: only.words, maths: only.text }] } };
}
