import { createHash } from 'node:crypto';
import { ambiguousComma, askedFor, foldLookalikes, normaliseMaths, readWorded, roundingAsked, strayToken, WORDED_UNKNOWN } from '@openpaw/maths';
import { type Canon, canonicalWithUnknowns, firstAppearanceForm, MathsParseError, statementsOf } from './canonical-form.js';
import { questionIntent } from './intent.js';
import { mathsRuns, type MathsToken, unreadSign } from './maths-tokens.js';
import { rewriteWordOperators } from './word-operators.js';

/**
 * Version of the extraction and canonicalisation rules; bump it whenever a rule changes (hashes change).
 * v3: the hash is name-free (the unknowns' names left out, the asked-for unknown as its canonical index),
 * so a renaming of a problem shares its hash and is served only through the variable bijection.
 */
export const MATHS_SIGNATURE_VERSION = 'maths-sig/v3';
/** The version before, whose hash a signature also carries (`previousHash`) so problems indexed under it stay found. */
export const PREVIOUS_MATHS_SIGNATURE_VERSION = 'maths-sig/v2';

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
  /** The hash under PREVIOUS_MATHS_SIGNATURE_VERSION (names in it): what problems indexed before v3 are found by. */
  readonly previousHash: string;
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
}

function hasStatement(tree: Canon): boolean {
  return tree.kind === 'op' && ['=', '<', '<=', '!='].includes(tree.op);
}

function hasUnknowns(tree: Canon): boolean {
  if (tree.kind === 'sym') return tree.renamable;
  return tree.kind === 'op' && tree.args.some(hasUnknowns);
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const runText = (run: readonly MathsToken[]): string => run.map((t) => t.text).join('');

/**
 * The maths signature of a problem's normalised text: word operators rewritten, maths runs extracted and
 * parsed (mathjs), canonicalised and hashed with the question's intent. A reading's per-token confidences
 * travel with it; the signature's confidence is the reader's verdict when given, else the lowest of them.
 */
export function extractMathsSignature(normalisedText: string, reading?: readonly ReadToken[], readingConfidence?: number): MathsExtraction {
  // Worded maths is read by the engine's worded reader, so a worded problem and its rewordings share
  // the signature of the maths they say ("five more than twice a number is seventeen" is 2n + 5 = 17,
  // asking for n); ambiguous wording gets no signature, as the engine refuses it.
  const worded = readWorded(normalisedText);
  if (worded !== undefined && 'ambiguous' in worded) return { unparsed: [`ambiguous wording: ${worded.ambiguous}`], dangling: [] };
  // Lookalike letters folded as the engine folds them ("2х + 1 = 7", Cyrillic х, is 2x + 1 = 7, not "1 = 7").
  const source = foldLookalikes(worded === undefined ? normalisedText : worded.read.maths);
  // The maths engine's reader decides what is maths (one reader for a hit and a solve): a letter run
  // touching the maths is a misreading or junk, and no signature is better than one of less maths.
  const asTheEngineReads = normaliseMaths(source);
  const stray = strayToken(asTheEngineReads);
  if (stray !== undefined) return { unparsed: [`"${stray}" sits in the maths`], dangling: [] };
  const comma = ambiguousComma(asTheEngineReads);
  if (comma !== undefined) return { unparsed: [`"${comma}": a decimal comma or a list`], dangling: [] };
  // |a| is the absolute value, as the engine reads it; a sign the lexer does not read is no signature.
  const text = rewriteWordOperators(source).replace(/\|([^|]+)\|/g, 'abs($1)');
  const sign = unreadSign(text);
  if (sign !== undefined) return { unparsed: [`"${sign}" sits in the maths`], dangling: [] };
  const statements: Canon[] = [];
  const numbers: string[] = [];
  const unparsed: string[] = [];
  const dangling: string[] = [];
  for (const run of mathsRuns(text)) {
    if (run.dangling !== '') dangling.push(`${run.dangling} next to ${runText(run.tokens)}`);
    try {
      statements.push(...statementsOf(run.tokens));
      for (const token of run.tokens) if (token.kind === 'number') numbers.push(token.text);
    } catch (error) {
      if (!(error instanceof MathsParseError)) throw error;
      unparsed.push(runText(run.tokens));
    }
  }
  if (statements.length === 0) return { unparsed, dangling };
  const asks = worded?.read.kind === 'equation' ? WORDED_UNKNOWN : askedFor(normalisedText);
  const named = firstAppearanceForm(statements);
  const { unknowns } = named;
  if (asks !== undefined && !unknowns.includes(asks) && unknowns.length > 0) return { unparsed: [`asks for ${asks}, which its maths does not hold`], dangling };
  const asked = asks !== undefined && unknowns.includes(asks) ? asks : undefined;
  const { canonical, unknowns: inCanonicalOrder, asksIndex } = canonicalWithUnknowns(statements, asked);
  const intent = questionIntent(text, statements.some(hasStatement), statements.some(hasUnknowns));
  // "to 2 d.p." asks for another answer than the exact one: it is part of the question, so of the key.
  const rounding = roundingAsked(normalisedText);
  const roundingLine = rounding === undefined ? '' : `\nrounded ${rounding.places} ${rounding.kind}`;
  const weakest = reading === undefined || reading.length === 0 ? 1 : Math.min(...reading.map((t) => t.confidence));
  const confidence = readingConfidence ?? weakest;
  const signature: MathsSignature = {
    version: MATHS_SIGNATURE_VERSION,
    // Name-free: the canonical form numbers the unknowns, and the asked-for one is its canonical index
    // (a lone unknown is the one asked for), so a renaming shares the hash; a hit maps the stored
    // problem onto the asker's through `unknowns[i] ↔ unknowns'[i]` and is served in the asker's names.
    hash: sha256(`${MATHS_SIGNATURE_VERSION}\n${intent}\n${canonical}\nasks ${asksIndex ?? (unknowns.length === 1 ? 0 : '')}${roundingLine}`),
    // v2 hashed the names; a problem indexed under it is the same problem only in the same names.
    previousHash: sha256(
      `${PREVIOUS_MATHS_SIGNATURE_VERSION}\n${intent}\n${named.canonical}\nunknowns ${unknowns.join(',')}\nasks ${asked ?? (unknowns.length === 1 ? unknowns[0] : '')}${roundingLine}`,
    ),
    canonical,
    intent,
    numbers: numbers.sort(),
    unknowns: inCanonicalOrder,
    ...(asked === undefined ? {} : { asks: asked }),
    confidence: Math.max(0, Math.min(1, confidence)),
    ...(reading === undefined ? {} : { tokens: reading.map((t) => ({ text: t.text, confidence: Math.max(0, Math.min(1, t.confidence)) })) }),
  };
  return { signature, unparsed, dangling };
}
