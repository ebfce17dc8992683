import { isConstantNode, isSymbolNode, type MathNode } from 'mathjs';
import { KNOWN_FUNCTIONS, parseExpression } from '../core/mathjs.js';
import { MATHS_SIGN } from '../screen/index.js';
import type { RelationOp } from '../types.js';

export type { RelationOp } from '../types.js';

/** A piece of mathematics found in prose: an expression, or two sides and a relation. */
export type MathStatement =
  | { readonly kind: 'expression'; readonly text: string; readonly node: MathNode }
  | { readonly kind: 'relation'; readonly text: string; readonly op: RelationOp; readonly lhs: MathNode; readonly rhs: MathNode };

/**
 * The mathematical statements in a (normalised) problem, in order. The text is cut into runs of
 * maths characters; a word of two letters or more ends a run unless it names a function; runs are
 * split at top-level commas and semicolons; each piece must parse with mathjs (each side of a
 * relation too) and contain a digit, an operator or a relation. This never guesses at prose: what
 * does not parse is dropped, and the solvers decide whether what is left is a problem they know.
 */
export function mathStatements(normalised: string): MathStatement[] {
  const out: MathStatement[] = [];
  for (const pieces of mathsRuns(normalised)) {
    if (!trustedRun(pieces)) continue;
    for (const piece of pieces.flatMap((p) => splitTopLevel(p.text))) {
      const statement = toStatement(trimPiece(piece));
      if (statement !== undefined) out.push(statement);
    }
  }
  return out;
}

type RunPiece = { readonly text: string; readonly after: string };

/** Runs of maths characters, each cut into pieces at words of two letters or more that name no function. */
function mathsRuns(normalised: string): RunPiece[][] {
  const runs: RunPiece[][] = [];
  for (const run of normalised.match(/[0-9a-zA-Z.+\-*/^()=<>!,;\s]+/g) ?? []) {
    let current = '';
    const pieces: RunPiece[] = [];
    let separator = '';
    for (const token of run.split(/([A-Za-z]{2,}\d*)/)) {
      if (/^[A-Za-z]{2,}\d*$/.test(token) && !KNOWN_FUNCTIONS.has(token.toLowerCase())) {
        pieces.push({ text: current, after: separator });
        separator = token.toLowerCase();
        current = '';
      } else current += token;
    }
    pieces.push({ text: current, after: separator });
    runs.push(pieces);
  }
  return runs;
}

/** Maths the statements leave out of a (normalised) problem, as `droppedMaths` reports it. */
export interface DroppedMaths {
  /** A relation not read in a run split by a word ("x = 3 mod 5"), or a piece with an operator that does not parse ("4x-(9=23", "2^10 3^5"). */
  readonly unread: readonly string[];
  /** Operators cut off the edge of a statement that was read ("by + 2 = 17" read as 2 = 17): an operand read as a word. */
  readonly cut: readonly string[];
}

/**
 * What of the maths in a problem `mathStatements` leaves out while reading the rest: a key, an answer
 * or a verdict computed from the statements would be about part of the maths. Prose with numbers in it
 * (a word problem's "tossed 3 times", a point "(-2, 3)") is not maths left out: no statement is read
 * from it, and the templates read the prose; nor are a trailing "=" ("7 × 8 = ?") and punctuation.
 */
export function droppedMaths(normalised: string): DroppedMaths {
  const unread: string[] = [];
  const cut: string[] = [];
  // "x -> 3" is a limit's arrow (the limit template reads it), not a relation.
  const holdsRelation = (text: string): boolean => /[=<>]/.test(text.replace(/->/g, '')) && /[0-9a-z]/i.test(text);
  for (const pieces of mathsRuns(normalised)) {
    if (!trustedRun(pieces)) {
      const run = pieces.map((p) => `${p.after} ${p.text}`).join(' ').replace(/\s+/g, ' ').trim();
      if (holdsRelation(run)) unread.push(run);
      // An operator against the word before it ("2^1 deg+3^5", a "0" read as "°"): an operand read as a
      // word. A "/" after a word is a unit's ("60 km/h").
      for (const piece of pieces) {
        const lead = /^\s*([+*^]+)\s*(?=[0-9a-z(])/i.exec(piece.text)?.[1];
        if (lead !== undefined && piece.after !== '' && !['and', 'or'].includes(piece.after)) cut.push(`${lead} next to ${piece.after}`);
      }
      continue;
    }
    for (const piece of pieces.flatMap((p) => splitTopLevel(p.text))) {
      const kept = trimPiece(piece);
      if (kept === '') continue;
      const statement = toStatement(kept);
      if (statement === undefined) {
        // A piece with an operator that does not parse ("2^10 3^5", a "+" lost) is maths not read; a
        // point or a list in brackets ("(-2, 3)") is read by the templates.
        // A limit's "x -> 3 (…)" is read by the limit template.
        const operated = /[+*/^]/.test(kept) || /[0-9a-z)]\s*-\s*[0-9a-z(]/i.test(kept);
        if (!kept.includes('->') && (holdsRelation(kept) || (operated && !/\([^()]*,[^()]*\)/.test(kept)))) unread.push(kept);
        continue;
      }
      if (statement.kind === 'expression' && (isConstantNode(statement.node) || isSymbolNode(statement.node))) continue;
      const at = piece.indexOf(kept);
      const before = piece.slice(0, at).replace(/^\s*(?:and|or)\s+/i, '');
      const after = piece.slice(at + kept.length).trim().replace(/^=$/, '');
      // A "!" after the maths is a factorial as much as a sentence's end ("(3!)!" was read as 3! = 6).
      const edges = `${before.replace(/[^=+*/^<>]/g, '')}${after.replace(/[^=+\-*/^<>!]/g, '')}`;
      if (edges !== '') cut.push(`${edges} next to ${kept}`);
    }
  }
  return { unread, cut };
}

/**
 * A comma between two digits that the maths cannot tell a decimal comma from a list separator by,
 * written as it stands ("2,5"), or undefined. Commas split the maths into statements; where a digit
 * stands on both sides, the split is sound only for a list of plain numbers ("the mean of 2, 5, 7") or
 * of whole relations (a system "x + y = 10, 2x - y = 5"). Anything else ("2,5 + 1,25", read as the
 * list 2 | 5 + 1 | 25, whose one sum would be answered as 6) is named, never read in part.
 */
export function ambiguousComma(normalised: string): string | undefined {
  for (const pieces of mathsRuns(normalised)) {
    for (const piece of pieces) {
      const parts = splitTopLevel(piece.text).map((part) => part.trim());
      if (parts.length < 2) continue;
      const plainNumbers = parts.every((part) => /^[-+]?\d+(?:\.\d+)?\.?$/.test(part));
      const wholeRelations = parts.every((part) => (part.match(RELATION) ?? []).length === 1 && /[^=<>!\s]\s*(?:<=|>=|!=|=|<|>)\s*[^=<>!\s]/.test(part));
      if (plainNumbers || wholeRelations) continue;
      for (let i = 1; i < parts.length; i++) {
        const before = /(\d+)$/.exec(parts[i - 1]!)?.[1];
        const after = /^(\d+)/.exec(parts[i]!)?.[1];
        if (before !== undefined && after !== undefined) return `${before},${after}`;
      }
    }
  }
  return undefined;
}

/**
 * Maths split by words other than "and"/"or" ("x = 3 mod 5", "3 squared plus 4 is 25") may use
 * the words as operators the engine does not know: such a run is not read at all.
 */
function trustedRun(pieces: readonly { text: string; after: string }[]): boolean {
  let seenNumeric = false;
  for (const piece of pieces) {
    const numeric = /\d/.test(piece.text);
    if (numeric && seenNumeric && !['and', 'or'].includes(piece.after)) return false;
    seenNumeric ||= numeric;
  }
  return true;
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if ((ch === ',' || ch === ';') && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function trimPiece(piece: string): string {
  let text = piece.trim().replace(/^(and|or)\s+/i, '');
  // Sentence punctuation and dangling operators at the edges are not maths.
  text = text.replace(/^[=+*/^.)<>!]+|[=+\-*/^.(<>!']+$/g, '').trim();
  // A single letter standing alone at the start is prose ("a", "I") when a space follows it and a digit-led expression continues.
  return text.replace(/^[aAI]\s+(?=\d)/, '').trim();
}

const RELATION = /<=|>=|!=|=|<|>/g;

function toStatement(text: string): MathStatement | undefined {
  if (text === '' || !MATHS_SIGN.test(text)) return undefined;
  const ops = text.match(RELATION) ?? [];
  if (ops.length === 0) {
    const node = parseExpression(text);
    return node === undefined ? undefined : { kind: 'expression', text, node };
  }
  if (ops.length !== 1 || ops[0] === '!=') return undefined;
  const [left, right] = text.split(RELATION).map((s) => s.trim());
  if (left === undefined || right === undefined || left === '' || right === '') return undefined;
  const lhs = parseExpression(left);
  const rhs = parseExpression(right);
  if (lhs === undefined || rhs === undefined) return undefined;
  return { kind: 'relation', text, op: ops[0] as RelationOp, lhs, rhs };
}
