import { isConstantNode, isSymbolNode } from 'mathjs';
import { type MathsBudget, withinRunningBudget } from '../core/budget.js';
import { heldNumeral } from '../core/exact-range.js';
import { freeVariables } from '../core/mathjs.js';
import { type Rounding, roundingAsked, withoutRounding } from '../solvers/rounding.js';
import { askedFor } from './asked-for.js';
import { ambiguousComma, droppedMaths, type DroppedMaths, mathStatements, type MathStatement } from './extract.js';
import { normaliseMaths } from './normalise.js';
import { NUMBER_WORD, strayToken } from './stray-tokens.js';
import { readWorded, WORDED_UNKNOWN, type WordedReading } from './worded.js';

/** The longest problem text the engine reads. */
export const MAX_PROBLEM_TEXT = 2_000;

/**
 * The work one reading may do outside a solve (the maths signature's): a school problem's reading
 * spends a few thousand steps, a 2,000-character text of a thousand statements ~1.5 million. The time
 * limit is a backstop above a cold process's first reading (0.2–0.7 s measured under load).
 */
export const READING_BUDGET: MathsBudget = { steps: 3_000_000, millis: 2_000 };

/**
 * A problem as the engine reads it: the one reading every maths reader uses (the engine's solvers, the
 * maths signature a hit is keyed by, the check), so a hit and a solve are always about the same maths.
 */
export interface MathsReading {
  /** The text in mathjs syntax (for a worded problem, the maths its words say). */
  readonly normalised: string;
  /** The statements read, bare numbers and lone letters left out (prose and lists, which templates read). */
  readonly statements: readonly MathStatement[];
  /** The statements of the text without its rounding instruction (the maths whose exact answer is rounded). */
  readonly exactStatements: readonly MathStatement[];
  /** The unknown the wording asks for ("solve for y", "find a", a worded problem's number). */
  readonly asks?: string;
  readonly rounding?: Rounding;
  /** Present for worded maths ("five more than twice a number is seventeen"). */
  readonly worded?: WordedReading;
}

export type MathsReadingResult =
  | { readonly read: MathsReading }
  /**
   * `dropped`: the maths the statements would leave out, when that is why. `exhausted`: the budget ran
   * out before the text was read, so nothing is known of its maths (on a busy moment, a read with time
   * to spare may read it).
   */
  | { readonly refused: string; readonly inScope: boolean; readonly dropped?: DroppedMaths; readonly exhausted?: true };

/** Statements a solver reads: relations, and expressions that are more than a number or a letter. */
function substantial(statements: readonly MathStatement[]): MathStatement[] {
  return statements.filter((s) => s.kind === 'relation' || !(isConstantNode(s.node) || isSymbolNode(s.node)));
}

export function unknownsOf(statement: MathStatement): string[] {
  return statement.kind === 'relation' ? [...freeVariables(statement.lhs), ...freeVariables(statement.rhs)] : freeVariables(statement.node);
}

/**
 * Reads a problem's maths, or refuses naming what it cannot read: text too long, LaTeX, ambiguous
 * wording, a letter run or sign inside the maths, a comma that may be a decimal comma, an asked-for
 * unknown the maths does not hold. What is not refused is read whole, so no reader keys, solves or
 * checks a part of the maths. The reading's work is bounded by `budget` (each parse and rewrite of the
 * text charges steps); past it the text is refused as too much work, never read in part.
 */
/** A label and its number ("Question 2", "Part b", "Exercise three") followed by a dash into the maths. */
const LABELLED_DASH = new RegExp(String.raw`\b(?:question|exercise|problem|part|step|example|task|item|ex|q)\.?\s*(?:\d+|[a-z]|${NUMBER_WORD}(?:-${NUMBER_WORD})?)\s*-\s*(?=\d|\(|[a-z](?![a-z])|${NUMBER_WORD}\b)`, 'i');

export function readMaths(text: string, budget: MathsBudget = READING_BUDGET): MathsReadingResult {
  if (text.length > MAX_PROBLEM_TEXT) return { refused: 'the problem text is too long for the maths engine', inScope: false };
  // Within a solve, the reading is charged to the solve's budget (and a reading past it ends the solve).
  const { result, exhaustedBy } = withinRunningBudget(budget, () => readWithin(text));
  return result ?? { refused: `too much work to read the maths: ${exhaustedBy ?? 'the budget was spent'}`, inScope: true, exhausted: true };
}

function readWithin(text: string): MathsReadingResult {
  if (/\\[A-Za-z]+|[{}]/.test(text)) return { refused: 'the problem uses LaTeX or other notation the maths engine does not read', inScope: false };
  const worded = readWorded(text);
  if (worded !== undefined && 'ambiguous' in worded) return { refused: `the wording is ambiguous: ${worded.ambiguous}`, inScope: false };
  if (worded !== undefined) {
    const statements = mathStatements(worded.read.maths);
    if (statements.length !== 1) return { refused: 'the worded problem did not read as one piece of maths', inScope: false };
    const asks = worded.read.kind === 'equation' ? { asks: WORDED_UNKNOWN } : {};
    return { read: { normalised: worded.read.maths, statements, exactStatements: statements, ...asks, worded: worded.read } };
  }
  const normalised = normaliseMaths(text);
  const stray = strayToken(normalised);
  if (stray !== undefined) return { refused: `"${stray}" sits in the maths and is neither a number, an unknown nor an operator the engine reads`, inScope: false };
  // "Exercise 3 - x + 1 = 4": the dash after a label's number may be a separator (x + 1 = 4, x = 3) or a
  // minus (3 − x + 1 = 4, x = 0); neither is guessed.
  const label = LABELLED_DASH.exec(normalised)?.[0];
  if (label !== undefined) return { refused: `the "-" in "${label.trim()}" may separate a label from the maths or be a minus; write the maths alone or with a colon`, inScope: false };
  // "10 % 3 + 1" is a remainder to some and 10 % × 3 to others, and the statements would read 3 + 1:
  // a "%" with an operand after it is refused by name ("20% of 50", "increase 40 by 10%" are percentages).
  const percent = /(?:(?<![\d.])\d+(?:\.\d+)?|\)|(?<![a-z])[a-z])\s*%\s*(?:[\d(+*/^=<>-]|[a-z](?![a-z]))/i.exec(normalised)?.[0];
  if (percent !== undefined) return { refused: `the "%" in "${percent.trim()}" may be a percentage or a remainder (mod), and the maths around it is not read whole`, inScope: false };
  // mathjs reads "2e+1" as the number 20: written by a student it may as well be 2e + 1 (e the unknown or
  // Euler's number). Neither is guessed.
  const exponent = /(?<![a-z\d.])\d+(?:\.\d+)?e[+-]?\d+/i.exec(normalised)?.[0];
  if (exponent !== undefined) return { refused: `"${exponent}" may be a number in scientific notation or a product with e; write it with × 10^ or with spaces`, inScope: false };
  // mathjs reads a numeral as a double: one with more digits than a double holds ("9007199254740993" is
  // read 9007199254740992, "1.0000000000000001" is read 1) would be answered about another number.
  const inexact = normalised.match(/(?<![\d.])\d+(?:\.\d+)?(?![\d.])/g)?.find((numeral) => !heldNumeral(numeral));
  if (inexact !== undefined) return { refused: `"${inexact}" has more digits than the maths engine computes with exactly (15 significant digits)`, inScope: true };
  const comma = ambiguousComma(normalised);
  if (comma !== undefined) return { refused: `the comma in "${comma}" may be a decimal comma or separate two numbers; write the decimal with a point`, inScope: false };
  const statements = substantial(mathStatements(normalised));
  const asks = askedFor(normalised);
  const unknowns = new Set(statements.flatMap(unknownsOf));
  // mathjs reads "t3" and "l0" as names: a letter against a digit is a misreading ("2^l0", "1" read as
  // "l") or a product written without its sign, and neither is guessed.
  const digitName = [...unknowns].find((name) => /\d/.test(name));
  if (digitName !== undefined) return { refused: `"${digitName}" reads as one name of a letter and a digit; write the product with a sign or check the reading`, inScope: false };
  if (asks !== undefined && statements.length > 0 && unknowns.size > 0 && !unknowns.has(asks)) {
    return { refused: `the problem asks for ${asks}, but its maths is in ${[...unknowns].sort().join(', ')}`, inScope: false };
  }
  const rounding = roundingAsked(normalised);
  const exact = rounding === undefined ? normalised : withoutRounding(normalised);
  // Maths the statements leave out ("x = 3 mod 5", "by + 2 = 17" read as 2 = 17) is refused by name:
  // solving, keying or checking the rest would be about part of the problem.
  const dropped = droppedMaths(exact);
  const [left] = [...dropped.unread, ...dropped.cut];
  if (left !== undefined) return { refused: `part of the maths is not read: ${left}`, inScope: false, dropped };
  const exactStatements = rounding === undefined ? statements : substantial(mathStatements(exact));
  return { read: { normalised, statements, exactStatements, ...(asks === undefined ? {} : { asks }), ...(rounding === undefined ? {} : { rounding }) } };
}
