import { all, create, type FactoryFunctionMap, isFunctionNode, isSymbolNode, type MathNode } from 'mathjs';
import { spend } from './budget.js';
import { KNOWN_FUNCTIONS } from './function-names.js';

// mathjs' typings declare `all` as possibly undefined (an indexed record); it is always present.
/** The engine's mathjs instance (floating point; exact work is done on Rational/Polynomial). */
export const mj = create(all as FactoryFunctionMap);

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

/** Relative-or-absolute closeness used by every numeric check. */
export function close(a: number, b: number, tolerance = 1e-9): boolean {
  return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(a), Math.abs(b));
}
