import { OpenPawError } from '@openpaw/contracts';
import type { MathStatement } from '@openpaw/maths';
import type { MathNode } from 'mathjs';

/** A canonical expression tree: numbers as written, named unknowns, operators with their arguments. */
export type Canon =
  | { readonly kind: 'num'; readonly value: string }
  | { readonly kind: 'sym'; readonly name: string; readonly renamable: boolean }
  | { readonly kind: 'op'; readonly op: string; readonly args: readonly Canon[] };

/** Operators whose argument order carries no meaning. */
const COMMUTATIVE = new Set(['+', '*', '=', '!=']);
/** Names the engine reads as constants, never as unknowns (its `freeVariables`). */
const CONSTANT_SYMBOLS = new Set(['pi', 'e', 'i', 'tau', 'phi', 'Infinity', 'NaN']);

export class MathsParseError extends OpenPawError {
  readonly code = 'maths_parse_failed';
  override readonly name = 'MathsParseError';
}

const num = (value: string): Canon => ({ kind: 'num', value });
const op = (name: string, args: readonly Canon[]): Canon => ({ kind: 'op', op: name, args });

function negate(term: Canon): Canon {
  if (term.kind === 'num') return num(term.value.startsWith('-') ? term.value.slice(1) : term.value === '0' ? '0' : `-${term.value}`);
  if (term.kind === 'op' && term.op === 'neg') return term.args[0] ?? num('0');
  if (term.kind === 'op' && term.op === '*') {
    const coefficient = term.args.findIndex((a) => a.kind === 'num');
    const target = term.args[coefficient];
    if (target !== undefined) return op('*', term.args.map((a, i) => (i === coefficient ? negate(target) : a)));
  }
  return op('neg', [term]);
}

/** Terms of a sum / factors of a product, nested sums and products flattened, subtraction as adding a negation. */
function flatten(node: MathNode, into: 'add' | 'multiply', sign: boolean): Canon[] {
  const inner = unwrap(node);
  if (inner.type === 'OperatorNode') {
    const o = inner as MathNode & { fn: string; args: MathNode[] };
    const [a, b] = o.args;
    if (into === 'add' && (o.fn === 'add' || o.fn === 'subtract') && a !== undefined && b !== undefined) {
      return [...flatten(a, 'add', sign), ...flatten(b, 'add', o.fn === 'subtract' ? !sign : sign)];
    }
    if (into === 'multiply' && o.fn === 'multiply' && a !== undefined && b !== undefined) return [...flatten(a, into, false), ...flatten(b, into, false)];
  }
  const term = fromNode(inner);
  return [sign ? negate(term) : term];
}

function unwrap(node: MathNode): MathNode {
  let current = node;
  while (current.type === 'ParenthesisNode') current = (current as MathNode & { content: MathNode }).content;
  return current;
}

function fromNode(node: MathNode): Canon {
  const n = unwrap(node);
  switch (n.type) {
    case 'ConstantNode': {
      const value = (n as MathNode & { value: unknown }).value;
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new MathsParseError(`unsupported constant ${String(value)}`);
      // Past 15 significant digits a double no longer tells two written numbers apart: two problems
      // would share a key through numbers that differ. Such a number is not keyed.
      if ((Number.isInteger(value) && !Number.isSafeInteger(value)) || String(value).replace(/e.*$/, '').replace(/\D/g, '').replace(/^0+/, '').length > 15) throw new MathsParseError(`${String(value)} has more digits than the key holds exactly`);
      return num(canonicalNumber(String(value)));
    }
    case 'SymbolNode': {
      const name = (n as MathNode & { name: string }).name;
      return { kind: 'sym', name, renamable: !CONSTANT_SYMBOLS.has(name) };
    }
    case 'OperatorNode': {
      const o = n as MathNode & { fn: string; args: MathNode[] };
      switch (o.fn) {
        case 'add':
        case 'subtract':
          return op('+', flatten(o, 'add', false));
        case 'multiply':
          return op('*', flatten(o, 'multiply', false));
        case 'unaryMinus':
          return negate(fromNode(o.args[0] ?? n));
        case 'unaryPlus':
          return fromNode(o.args[0] ?? n);
        case 'divide':
          return op('/', o.args.map(fromNode));
        case 'pow':
          return op('^', o.args.map(fromNode));
        default:
          return op(o.fn, o.args.map(fromNode));
      }
    }
    case 'FunctionNode': {
      const f = n as MathNode & { fn: MathNode & { name?: string }; args: MathNode[] };
      return op(f.fn.name ?? 'fn', f.args.map(fromNode));
    }
    default:
      throw new MathsParseError(`unsupported ${n.type}`);
  }
}

/** "007" → "7", "3.50" → "3.5": one spelling per value (no rounding). */
export function canonicalNumber(literal: string): string {
  const plain = literal.replace(/,/g, '');
  const [whole = '0', fraction = ''] = plain.split('.');
  const int = whole.replace(/^0+(?=\d)/, '');
  const frac = fraction.replace(/0+$/, '');
  return frac === '' ? int : `${int}.${frac}`;
}

/**
 * One statement as the engine read it (its mathjs trees), as a canonical tree: an equation or
 * inequality ("a > b" becomes "b < a") or a bare expression. Throws `MathsParseError` on a node the
 * canonical form has no spelling for.
 */
export function canonOfStatement(statement: MathStatement): Canon {
  if (statement.kind === 'expression') return fromNode(statement.node);
  const [left, right] = [fromNode(statement.lhs), fromNode(statement.rhs)];
  switch (statement.op) {
    case '>':
      return op('<', [right, left]);
    case '>=':
      return op('<=', [right, left]);
    default:
      return op(statement.op, [left, right]);
  }
}

/** Every number in a canonical tree, canonical spelling (a negative constant by its magnitude, as written). */
export function numbersOf(tree: Canon, into: string[] = []): string[] {
  if (tree.kind === 'num') into.push(tree.value.replace(/^-/, ''));
  else if (tree.kind === 'op') for (const a of tree.args) numbersOf(a, into);
  return into;
}

type Names = (name: string) => string;

/** Children of commutative operators sorted by their own rendering under `names`, recursively. */
function ordered(tree: Canon, names: Names): Canon {
  if (tree.kind !== 'op') return tree;
  const args = tree.args.map((a) => ordered(a, names));
  if (!COMMUTATIVE.has(tree.op)) return op(tree.op, args);
  const keyed = args.map((a) => ({ a, key: render(a, names) }));
  keyed.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return op(tree.op, keyed.map((k) => k.a));
}

function render(tree: Canon, names: Names): string {
  switch (tree.kind) {
    case 'num':
      return tree.value;
    case 'sym':
      return tree.renamable ? names(tree.name) : tree.name;
    case 'op':
      return `(${tree.op} ${tree.args.map((a) => render(a, names)).join(' ')})`;
  }
}

function unknownsInOrder(tree: Canon, into: string[]): void {
  if (tree.kind === 'sym') {
    if (tree.renamable && !into.includes(tree.name)) into.push(tree.name);
  } else if (tree.kind === 'op') for (const a of tree.args) unknownsInOrder(a, into);
}

/**
 * The canonical form of a set of statements: operands of +, × and = sorted, unknowns renamed v0, v1, …
 * (so "3a + 2 = 11" and "2 + 3y = 11" agree), statements sorted and joined by ";". Numbers are kept
 * exactly as written, so two problems whose numbers differ never share a form, even when their
 * equations are equivalent.
 */
export function canonicalForm(statements: readonly Canon[]): string {
  return canonicalWithUnknowns(statements).canonical;
}

/** The canonical form of a set of statements with the unknowns named v0, v1, … in `order`. */
function formUnder(statements: readonly Canon[], order: readonly string[]): string {
  const renamed: Names = (name) => `v${order.indexOf(name)}`;
  return [...new Set(statements.map((s) => render(ordered(s, renamed), renamed)))].sort().join(';');
}

/** Unknowns in order of first appearance in the name-blind ordering of the statements (maths-sig/v2's numbering). */
function firstAppearanceOrder(statements: readonly Canon[]): string[] {
  const blind: Names = () => '_';
  const byShape = statements.map((s) => ordered(s, blind)).map((s) => ({ s, key: render(s, blind) }));
  byShape.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  const order: string[] = [];
  for (const { s } of byShape) unknownsInOrder(s, order);
  return order;
}

function* permutations<T>(items: readonly T[]): Generator<T[]> {
  if (items.length <= 1) {
    yield [...items];
    return;
  }
  for (let i = 0; i < items.length; i++) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const tail of permutations(rest)) yield [items[i] as T, ...tail];
  }
}

/**
 * Up to this many unknowns, every numbering is tried (6! = 720 renderings at most); above it the
 * first-appearance numbering stands, which is sound (one form still means one bijection) but may tell
 * two renamings of one problem apart: a miss, never a wrong hit.
 */
export const MAX_UNKNOWNS_NUMBERED_EXHAUSTIVELY = 6;

export interface CanonicalMaths {
  /** The statements with the unknowns named v0, v1, …: equal for two problems iff one is a renaming of the other. */
  readonly canonical: string;
  /** The problem's own name of each unknown, in canonical order (`unknowns[i]` is `vi`). */
  readonly unknowns: readonly string[];
  /** The canonical index of the asked-for unknown (`asks` is `unknowns[asksIndex]`), when one is asked for. */
  readonly asksIndex?: number;
}

/**
 * The canonical form, the problem's own name of each unknown in canonical order, and the asked-for
 * unknown's canonical index. The numbering is the one whose rendering (then the asked-for index) is
 * least among all numberings, so it does not depend on the names or the order they were written in:
 * two problems with one form and one asked-for index map onto each other through `unknowns[i] ↔
 * unknowns'[i]`, a variable bijection between their equations that sends the asked-for unknown to the
 * asked-for unknown. (A problem with symmetries has several such numberings; each gives a valid bijection.)
 */
export function canonicalWithUnknowns(statements: readonly Canon[], asks?: string): CanonicalMaths {
  const first = firstAppearanceOrder(statements);
  const candidates = first.length <= MAX_UNKNOWNS_NUMBERED_EXHAUSTIVELY ? permutations(first) : [first][Symbol.iterator]();
  let best: { canonical: string; order: string[]; asksIndex: number } | undefined;
  for (const order of candidates) {
    const canonical = formUnder(statements, order);
    const asksIndex = asks === undefined ? -1 : order.indexOf(asks);
    if (best === undefined || canonical < best.canonical || (canonical === best.canonical && asksIndex < best.asksIndex)) best = { canonical, order, asksIndex };
  }
  const chosen = best ?? { canonical: formUnder(statements, first), order: first, asksIndex: -1 };
  return { canonical: chosen.canonical, unknowns: chosen.order, ...(chosen.asksIndex < 0 ? {} : { asksIndex: chosen.asksIndex }) };
}

/** The maths-sig/v2 form (first-appearance numbering), kept for the dual read of problems indexed under v2. */
export function firstAppearanceForm(statements: readonly Canon[]): { readonly canonical: string; readonly unknowns: readonly string[] } {
  const order = firstAppearanceOrder(statements);
  return { canonical: formUnder(statements, order), unknowns: order };
}
