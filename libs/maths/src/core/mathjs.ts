import { all, create, type FactoryFunctionMap, isFunctionNode, type MathJsInstance, isOperatorNode, isSymbolNode, type MathNode } from 'mathjs';
import { spend } from './budget.js';
import { KNOWN_FUNCTIONS } from './function-names.js';

// mathjs' typings declare `all` as possibly undefined (an indexed record); it is always present.
/** The engine's mathjs instance (floating point; exact work is done on Rational/Polynomial). */
export const mj = create(all as FactoryFunctionMap);

/**
 * A second instance computing in 64 significant digits, for a written value checked against the engine's:
 * 500000 − √249999999999 is 0.000001000000000001 to it, where doubles give 0.000001000007614.
 */
let precise: MathJsInstance | undefined;

/** Made on first use: only the answer check needs it, and a second instance costs its own load time and memory. */
function preciseMaths(): MathJsInstance {
  precise ??= create(all as FactoryFunctionMap, { number: 'BigNumber', precision: 64 });
  return precise;
}

/** The real value of constant mathjs text to 64 digits, as the nearest double; undefined when it is not a real constant, a double cannot hold it, or it holds a factorial. */
export function evaluatePrecisely(text: string): number | undefined {
  // A factorial or gamma in 64 digits is a product as long as its argument (100000! takes ~0.5 s): doubles only.
  if (/!|gamma|factorial/i.test(text)) return undefined;
  try {
    const maths = preciseMaths();
    const value: unknown = maths.evaluate(text);
    if (!maths.isBigNumber(value) || !value.isFinite()) return undefined;
    const nearest = value.toNumber();
    return Number.isFinite(nearest) ? nearest : undefined;
  } catch {
    return undefined;
  }
}

/** Function names the engine reads in problem text. */
export { KNOWN_FUNCTIONS };
/** Letters that name functions in problems ("f(x) = ..."), never a product. */
const FUNCTION_LETTERS = new Set(['f', 'g', 'h']);

/** What one parse is charged: measured ~20 µs for "1" and ~1.4 ms for 280 characters (a step is ~0.1 µs). */
const PARSE_STEPS = 200;
const PARSE_STEPS_PER_CHARACTER = 40;

/**
 * Parses mathjs syntax, reading `x(x + 1)` as a product (mathjs would read a call of x) and refusing
 * assignments, blocks, matrices and unknown functions; undefined when the text is not an expression.
 */
export function parseExpression(text: string): MathNode | undefined {
  if (text.trim() === '' || text.length > 300) return undefined;
  spend(PARSE_STEPS + PARSE_STEPS_PER_CHARACTER * text.length, 'reading the maths');
  let node: MathNode;
  try {
    node = mj.parse(text);
  } catch {
    return undefined;
  }
  let ok = true;
  const transformed = node.transform((n) => {
    if (!isFunctionNode(n)) return n;
    const name = n.fn.name;
    if (KNOWN_FUNCTIONS.has(name)) return n;
    if (name.length === 1 && !FUNCTION_LETTERS.has(name) && n.args.length === 1) {
      return new mj.OperatorNode('*', 'multiply', [new mj.SymbolNode(name), new mj.ParenthesisNode(n.args[0]!)], true);
    }
    // "f(x)" names a function ("f(x) = x^2 + 1"); solvers read it only as the left side of a definition.
    if (FUNCTION_LETTERS.has(name) && n.args.length === 1 && isSymbolNode(n.args[0]!)) return n;
    ok = false;
    return n;
  });
  let allowed = true;
  transformed.traverse((n) => {
    if (!['OperatorNode', 'ConstantNode', 'SymbolNode', 'ParenthesisNode', 'FunctionNode'].includes(n.type)) allowed = false;
  });
  return ok && allowed ? transformed : undefined;
}

/** Free variables of an expression (not constants, not function names), sorted. */
export function freeVariables(node: MathNode): string[] {
  const names = new Set<string>();
  node.traverse((n, _path, parent) => {
    if (!isSymbolNode(n)) return;
    if (parent !== null && isFunctionNode(parent) && parent.fn === n) return;
    if (!['pi', 'e', 'i', 'tau', 'phi', 'Infinity', 'NaN'].includes(n.name)) names.add(n.name);
  });
  return [...names].sort();
}

/** Evaluates in floating point; undefined when the value is not a finite real number. */
export function evaluateReal(node: MathNode, scope: Readonly<Record<string, number>> = {}): number | undefined {
  try {
    const value: unknown = node.evaluate({ ...scope });
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** LaTeX of an expression, with implicit products shown as juxtaposition. */
export function texOf(node: MathNode): string {
  return node
    .toTex({ parenthesis: 'keep', implicit: 'hide' })
    .replace(/~\s*/g, ' ')
    .replace(/\\cdot/g, '\\cdot ')
    .trim();
}

/** Display text of an expression (mathjs syntax, implicit products hidden). */
export function textOf(node: MathNode): string {
  return node.toString({ parenthesis: 'keep', implicit: 'hide' });
}

/**
 * The size of the terms an expression's value is computed from: the expression evaluated with every
 * subtraction made an addition and every negation dropped (500000 − √249999999999 has terms of size
 * 10^6, though its value is 10^-6). A double result carries rounding error relative to this, not to
 * itself; undefined when it has no finite real value.
 */
export function magnitudeOfTerms(node: MathNode, scope: Readonly<Record<string, number>> = {}): number | undefined {
  const value = evaluateReal(withSubtractionsAdded(node), scope);
  return value === undefined ? undefined : Math.abs(value);
}

function withSubtractionsAdded(node: MathNode): MathNode {
  const mapped = node.map((child) => withSubtractionsAdded(child));
  if (!isOperatorNode(mapped)) return mapped;
  if (mapped.fn === 'unaryMinus') return mapped.args[0]!;
  return mapped.fn === 'subtract' ? new mj.OperatorNode('+', 'add', [mapped.args[0]!, mapped.args[1]!]) : mapped;
}
