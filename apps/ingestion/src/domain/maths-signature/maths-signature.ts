import { createHash } from 'node:crypto';
import { LruMap } from '@openpaw/contracts';
import { intentWording, KNOWN_FUNCTIONS, MATHS_READING_VERSION, type MathsBudget, type MathStatement, readMaths } from '@openpaw/maths';
import { type Canon, canonicalWithUnknowns, canonOfStatement, MathsParseError, numbersOf } from './canonical-form.js';
import { questionIntent } from './intent.js';

/**
 * Version of the extraction and canonicalisation rules; bump it whenever a rule changes (hashes change).
 * v3: the hash is name-free (the unknowns' names left out, the asked-for unknown as its canonical index),
 * so a renaming of a problem shares its hash and is served only through the variable bijection.
 * v4: the maths is the engine's reading (`readMaths`), not a lexer of the signature's own: the key of a
 * problem is the key of the maths the engine solves. A v3 key may have been computed from another
 * reading, so it is never matched (no `previousHash`); the re-key sweep recomputes it from the stored text.
 * v5: the reading no longer cuts the maths at "%" or a trailing "!" (v4 keyed "10 % 3 + 1" as 3 + 1 and
 * "(3!)!" as 3!, the keys of other problems) and reads "times", "plus", "minus", "divided by" as signs only
 * between operands (v4 keyed "3 times a day" as 3a). Same rule as v4: older keys are never matched.
 * v6: the reading refuses number words that form no one number ("one two three plus one" was keyed as
 * 6 + 1, the key of "six plus one") and numerals a double cannot hold ("x + 9007199254740993 = 0"
 * was keyed with ...992), and a worded power of a power is ambiguous: such a text now has no key, and
 * its v5 key may be another problem's. Same rule: older keys are never matched.
 * v7: the asked-for unknown is read from a rearrangement's wording too ("make x the subject", "express x
 * in terms of y", "x = ?"): v6 keyed "make x the subject of y = 2x + 3" and "make y the subject of y =
 * 2x + 3" alike, so a hit could serve one's answer to the other. Same rule: older keys are never matched.
 * v8: the key holds the intent the engine reads in the wording (`intentWording`: "simplify", "in simplest
 * surd form", "convert", "limit" …), and the prose line leaves out the words that said it and
 * instructions run together ("workout"). v7 keyed "Evaluate √252" (answered ≈ 15.87) and "Simplify √252"
 * (answered 6√7) alike, and split one question asked in two wordings ("Find the roots of …" and "Solve
 * the quadratic equation …", "Expand …" and "Multiply out …", "work out 28/7-29" read "workout …").
 * The reading also takes single letters written together as an operand of a formula for their product
 * ("v = u + at", refused before) and a number word there for its number ("Solve x + 2 = ten", keyed by
 * v7 as the expression x + 2). Same rule: older keys are never matched.
 * v11: a letter written against an absolute-value bar is its own factor ("x|x| < 4" is x·|x| < 4): v10
 * read it "(x) < 4", the key of "x < 4", and the engine answered it x < 4. Same rule: older keys are never matched.
 * From v11 the number is the engine's reading version (`MATHS_READING_VERSION`, bumped with every change
 * of the reading): a row keyed under another version is re-keyed by the maths reading sweep when its
 * text reads the same today, and withdrawn when it does not.
 */
export const MATHS_SIGNATURE_VERSION = `maths-sig/v${MATHS_READING_VERSION}`;

export type MathsIntent = 'solve' | 'evaluate' | 'simplify' | 'expand' | 'factor' | 'differentiate' | 'integrate' | 'unspecified';

/** A maths token as read from an image, with the reader's confidence 0..1. */
export interface ReadToken {
  readonly text: string;
  readonly confidence: number;
}

export interface MathsSignature {
  readonly version: string;
  readonly hash: string;
  readonly canonical: string;
  readonly intent: MathsIntent;
  readonly numbers: readonly string[];
  /** The problem's own name of each canonical unknown, in order (`unknowns[i]` is `vi` in `canonical`). */
  readonly unknowns: readonly string[];
  /** The unknown the question asks for ("find a", "solve for y"), in the problem's own name; its canonical index is part of the hash. */
  readonly asks?: string;
  /** 1 for typed text; for a reading, the lowest confidence of its maths tokens. */
  readonly confidence: number;
  readonly tokens?: readonly ReadToken[];
}

export interface MathsExtraction {
  /** Absent when the text holds no maths that parses. */
  readonly signature?: MathsSignature;
  /** Runs that looked like maths but did not parse (an OCR misreading often shows up here). */
  readonly unparsed: readonly string[];
  /** Runs cut short by a word next to an operator ("by+2=17"): in a reading, a misread operand. */
  readonly dangling: readonly string[];
  /** The engine's budget ran out before it read the text: whether it is maths, and which, is not known. */
  readonly unchecked?: true;
}

function hasStatement(tree: Canon): boolean {
  return tree.kind === 'op' && ['=', '<', '<=', '!='].includes(tree.op);
}

function hasUnknowns(tree: Canon): boolean {
  if (tree.kind === 'sym') return tree.renamable;
  return tree.kind === 'op' && tree.args.some(hasUnknowns);
}

/**
 * Words that only ask for the maths (instructions, connectives, the wording of a rounding instruction or
 * of an asked-for unknown): a question whose prose holds nothing else is its maths.
 */
const INSTRUCTION_WORDS = new Set(
  (
    'solve find evaluate calculate compute work out simplify expand factorise factorize factor fully completely differentiate integrate ' +
    'what whats is are the value values of for if when and or given that such where let then show answer give your write determine ' +
    'question problem exercise equation equations expression system simultaneous following this these in terms with respect to please ' +
    'can you help me how do we unknown variable by an it its be rounded round correct decimal places place significant figures figure dp ' +
    'sf nearest whole number integer tenth hundredth thousandth exact form simplest inequality derivative integral roots root solution ' +
    'solutions both sides true each which ' +
    // Words naming the kind of maths given, which its canonical form already shows ("the quadratic equation").
    'quadratic linear cubic polynomial rational simultaneous simultaneously'
  ).split(' '),
);

/**
 * A word made only of instruction words of three letters or more, run together ("workout", "solvefor",
 * "findthe": a reading that lost a space). Short words are left out, so "into" is not "in to".
 */
function runTogetherInstructions(word: string): boolean {
  const splits = (rest: string): boolean => rest === '' || [...INSTRUCTION_WORDS].some((w) => w.length >= 3 && rest.startsWith(w) && splits(rest.slice(w.length)));
  return !INSTRUCTION_WORDS.has(word) && splits(word);
}

/**
 * The prose words of a text outside its statements that are neither instructions nor the wording of its
 * intent (`withoutIntent`: the text with that wording taken out), sorted, each once.
 */
function proseWords(withoutIntent: string, statements: readonly MathStatement[]): string[] {
  let rest = withoutIntent;
  for (const statement of statements) rest = rest.replace(statement.text.toLowerCase(), ' ');
  const words = rest.match(/[a-z]{2,}/g) ?? [];
  return [...new Set(words.filter((w) => !INSTRUCTION_WORDS.has(w) && !KNOWN_FUNCTIONS.has(w) && !runTogetherInstructions(w)))].sort();
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The maths signature of a problem's normalised text: the maths as the maths engine reads it
 * (`readMaths`: worded maths, lookalike letters, |a|, log_b, "3 x 4", decimal commas, the asked-for
 * unknown and a rounding instruction all read once, for the key and the solve alike), canonicalised
 * and hashed with the question's intent. Whatever the engine refuses, or maths its statements leave
 * out, gives no signature: a key is never computed from part of the maths. A reading's per-token
 * confidences travel with it; the signature's confidence is the reader's verdict when given, else the
 * lowest of them.
 */
export function extractMathsSignature(normalisedText: string, reading?: readonly ReadToken[], readingConfidence?: number, budget?: MathsBudget): MathsExtraction {
  if (reading !== undefined || readingConfidence !== undefined || budget !== undefined) return extract(normalisedText, reading, readingConfidence, budget);
  const known = typedSignatures.get(normalisedText);
  if (known !== undefined) return known;
  const extraction = extract(normalisedText);
  // Only a signature is kept: a refusal may be the reading's time budget on a busy moment, which a later read need not hit.
  if (extraction.signature === undefined) return extraction;
  const kept = frozen(extraction);
  typedSignatures.set(normalisedText, kept);
  return kept;
}

/** ~1–3 kB each (the text and its signature): a few MB at most. */
export const TYPED_SIGNATURES_KEPT = 2048;
/**
 * Typed texts' signatures, most recently used last. Reading the maths is most of a typed problem's
 * ingestion (1.2–1.6 ms of its ~2 ms at the hit-path bench's 100 copies a second), and a problem
 * that is copied — the same homework typed by many — is read again for the same signature: the text
 * is the whole input (no reading tokens), so the signature is the same each time.
 */
const typedSignatures = new LruMap<string, MathsExtraction>(TYPED_SIGNATURES_KEPT);

function frozen(extraction: MathsExtraction): MathsExtraction {
  const { signature } = extraction;
  if (signature !== undefined) {
    Object.freeze(signature.numbers);
    Object.freeze(signature.unknowns);
    Object.freeze(signature);
  }
  return Object.freeze({ ...extraction, unparsed: Object.freeze([...extraction.unparsed]), dangling: Object.freeze([...extraction.dangling]) });
}

function extract(normalisedText: string, reading?: readonly ReadToken[], readingConfidence?: number, budget?: MathsBudget): MathsExtraction {
  const read = readMaths(normalisedText, budget);
  if ('refused' in read && read.exhausted === true) return { unparsed: [read.refused], dangling: [], unchecked: true };
  if ('refused' in read) return read.dropped === undefined ? { unparsed: [read.refused], dangling: [] } : { unparsed: [...read.dropped.unread], dangling: [...read.dropped.cut] };
  const { statements: asRead, exactStatements, asks: asked, rounding, worded } = read.read;
  // The exact maths of a rounded question ("22/7 to 2 d.p."): the instruction is keyed on its own line.
  const keyed = rounding === undefined ? asRead : exactStatements;
  let statements: Canon[];
  try {
    statements = keyed.map(canonOfStatement);
  } catch (error) {
    if (!(error instanceof MathsParseError)) throw error;
    return { unparsed: [error.message], dangling: [] };
  }
  if (statements.length === 0) return { unparsed: [], dangling: [] };
  const numbers = statements.flatMap((s) => numbersOf(s));
  const { canonical, unknowns, asksIndex } = canonicalWithUnknowns(statements, asked);
  if (asked !== undefined && unknowns.length > 0 && asksIndex === undefined) return { unparsed: [`asks for ${asked}, which its maths does not hold`], dangling: [] };
  const intent = worded === undefined ? questionIntent(normalisedText, statements.some(hasStatement), statements.some(hasUnknowns)) : worded.kind === 'equation' ? 'solve' : 'evaluate';
  // "to 2 d.p." asks for another answer than the exact one: it is part of the question, so of the key.
  const roundingLine = rounding === undefined ? '' : `\nrounded ${rounding.places} ${rounding.kind}`;
  const weakest = reading === undefined || reading.length === 0 ? 1 : Math.min(...reading.map((t) => t.confidence));
  const confidence = readingConfidence ?? weakest;
  // The prose around the maths is part of the question when it says more than an instruction: "the area
  // of a rectangle 4 x 6" and "the perimeter of a rectangle 4 x 6" read the same maths, 4 × 6.
  // The engine's own reading of what is asked ("simplify √252" is 6√7, "evaluate √252" ≈ 15.87): the
  // signature's intent tells equations from expressions, this one the form of the answer asked for.
  // Text whose wording says no intent is evaluated, as the engine evaluates it.
  const wording = worded === undefined ? intentWording(read.read.normalised.toLowerCase()) : { intent: worded.kind === 'equation' ? 'solve' : 'evaluate', rest: '' };
  const prose = worded === undefined ? proseWords(wording.rest, asRead) : [];
  const proseLine = prose.length === 0 ? '' : `\nprose ${prose.join(' ')}`;
  const signature: MathsSignature = {
    version: MATHS_SIGNATURE_VERSION,
    // Name-free: the canonical form numbers the unknowns, and the asked-for one is its canonical index
    // (a lone unknown is the one asked for), so a renaming shares the hash; a hit maps the stored
    // problem onto the asker's through `unknowns[i] ↔ unknowns'[i]` and is served in the asker's names.
    hash: sha256(`${MATHS_SIGNATURE_VERSION}\n${intent}\nreads ${wording.intent ?? 'evaluate'}\n${canonical}\nasks ${asksIndex ?? (unknowns.length === 1 ? 0 : '')}${roundingLine}${proseLine}`),
    canonical,
    intent,
    numbers: numbers.sort(),
    unknowns,
    ...(asked === undefined || asksIndex === undefined ? {} : { asks: asked }),
    confidence: Math.max(0, Math.min(1, confidence)),
    ...(reading === undefined ? {} : { tokens: reading.map((t) => ({ text: t.text, confidence: Math.max(0, Math.min(1, t.confidence)) })) }),
  };
  return { signature, unparsed: [], dangling: [] };
}
