import { all, create, type FactoryFunctionMap, type MathNode } from 'mathjs';

/**
 * The local model's worked solutions, computed with mathjs: arithmetic expressions (reduced one
 * operation at a time, exactly, with fractions) and linear equations in one variable (the equation
 * moved to one side and evaluated as a·x + b with mathjs, linearity checked with mathjs' symbolic
 * derivative). Anything else is an honest "cannot solve" with the reason.
 */

export interface SolutionStep {
  readonly title: string;
  readonly detail: string;
}

export type MathSolution =
  | {
      readonly canSolve: true;
      readonly kind: 'arithmetic' | 'linear_equation';
      /** The expression or equation that was solved, as found in the text. */
      readonly problem: string;
      readonly steps: readonly SolutionStep[];
      /** e.g. `84`, `x = 7/3`, `no solution`. */
      readonly finalAnswer: string;
      /** Set when a step could only be computed in floating point (e.g. sqrt(2)). */
      readonly approximate: boolean;
    }
  | {
      readonly canSolve: false;
      readonly problem: string | undefined;
      readonly reason: string;
    };

// mathjs' typings declare `all` as possibly undefined (an indexed record); it is always present.
const allFactories = all as FactoryFunctionMap;
/** Exact arithmetic: number literals become fractions. */
const exact = create(allFactories, { number: 'Fraction' });
/** Floating point, for what has no exact fraction (roots, logs, pi). */
const float = create(allFactories);

const FUNCTIONS = new Set(['sqrt', 'cbrt', 'abs', 'exp', 'log', 'ln', 'log10', 'log2', 'sin', 'cos', 'tan', 'floor', 'ceil', 'round', 'pi', 'e']);
const CONSTANTS = new Set(['pi', 'e', 'tau', 'phi', 'i', 'Infinity', 'NaN']);

export function solveMathProblem(text: string): MathSolution {
  if (/\\[A-Za-z]+|[{}]/.test(text)) {
    return { canSolve: false, problem: undefined, reason: 'the problem uses LaTeX or other notation the local model does not read' };
  }
  const candidate = findMathCandidate(text);
  if (candidate === undefined) {
    return { canSolve: false, problem: undefined, reason: 'no arithmetic expression or equation was found in the problem text' };
  }
  try {
    return candidate.rhs === undefined ? solveArithmetic(candidate.lhs) : solveEquation(candidate.lhs, candidate.rhs);
  } catch (error) {
    const problem = candidate.rhs === undefined ? candidate.lhs : `${candidate.lhs} = ${candidate.rhs}`;
    return { canSolve: false, problem, reason: `mathjs could not work with "${problem}": ${(error as Error).message}` };
  }
}

// ---- finding the math in a sentence ----------------------------------------------------------

interface Candidate {
  readonly lhs: string;
  readonly rhs?: string;
}

/**
 * Picks the expression or equation out of prose. This only cuts the text into spans of math
 * characters (words of two letters or more end a span unless they are function names); mathjs
 * parses every span, and spans it rejects are dropped. Equations win over plain expressions. A
 * span is not trusted when words split it from more numbers in the same run ("x = 3 mod 5"): the
 * words may be operators the local model does not know.
 */
export function findMathCandidate(text: string): Candidate | undefined {
  const normalised = text
    .replace(/[×·∙]/g, '*')
    .replace(/÷/g, '/')
    .replace(/[−–—]/g, '-')
    .replace(/\bmultiplied by\b|\btimes\b/gi, '*')
    .replace(/\bdivided by\b/gi, '/')
    .replace(/\bplus\b/gi, '+')
    .replace(/\bminus\b/gi, '-')
    .replace(/\bsquared\b/gi, '^2')
    .replace(/\bequals\b|\bis equal to\b/gi, '=');
  const spans: string[] = [];
  for (const run of normalised.match(/[0-9a-zA-Z.+\-*/^()=\s]+/g) ?? []) {
    const runSpans: string[] = [];
    let current = '';
    for (const token of run.split(/([A-Za-z]{2,})/)) {
      if (/^[A-Za-z]{2,}$/.test(token) && !FUNCTIONS.has(token.toLowerCase())) {
        runSpans.push(current);
        current = '';
      } else {
        current += token;
      }
    }
    runSpans.push(current);
    const numeric = runSpans.map(trimSpan).filter((span) => /\d/.test(span));
    if (numeric.length === 1) spans.push(numeric[0]!);
  }
  const candidates: Candidate[] = [];
  for (const trimmed of spans) {
    if (trimmed.length > 300) continue;
    const sides = trimmed.split('=').map((side) => side.trim());
    if (sides.length > 2 || sides.some((side) => side === '')) continue;
    const [lhs, rhs] = sides;
    if (lhs === undefined) continue;
    if (rhs === undefined && !/[+\-*/^(]/.test(lhs.replace(/^-/, ''))) continue; // a lone number is not a problem
    if (!parses(lhs) || (rhs !== undefined && !parses(rhs))) continue;
    candidates.push(rhs === undefined ? { lhs } : { lhs, rhs });
  }
  return candidates.find((c) => c.rhs !== undefined) ?? candidates.sort((a, b) => b.lhs.length - a.lhs.length)[0];
}

function trimSpan(span: string): string {
  return span
    .trim()
    .replace(/^[=+*/^.)]+|[=+\-*/^.(]+$/g, '')
    .trim();
}

function parses(expression: string): boolean {
  try {
    const node = exact.parse(expression);
    return node.type !== 'AssignmentNode' && node.type !== 'BlockNode';
  } catch {
    return false;
  }
}

// ---- arithmetic ---------------------------------------------------------------------------------

function solveArithmetic(expression: string): MathSolution {
  let node = exact.parse(expression);
  const variables = freeVariables(node);
  if (variables.length > 0) {
    return { canSolve: false, problem: expression, reason: `the expression has unknowns (${variables.join(', ')}) but no equation to solve` };
  }
  const steps: SolutionStep[] = [{ title: 'Write the expression', detail: show(node) }];
  let approximate = false;
  for (let guard = 0; guard < 100 && !isConstant(node); guard++) {
    const target = firstReducible(node);
    if (target === undefined) break;
    const { value, approximate: approx } = evaluateNode(target);
    approximate ||= approx;
    const replacement = new exact.ConstantNode(value);
    node = stripConstantParens(node.transform((n) => (n === target ? replacement : n)));
    steps.push({ title: `Compute ${show(target)}`, detail: `${show(target)} = ${formatValue(value)}, so the expression becomes ${show(node)}` });
  }
  if (!isConstant(node)) {
    return { canSolve: false, problem: expression, reason: `the expression could not be reduced past ${show(node)}` };
  }
  const value = constantValue(node);
  return { canSolve: true, kind: 'arithmetic', problem: show(exact.parse(expression)), steps, finalAnswer: formatValue(value, approximate), approximate };
}

/** The left-most innermost operation whose operands are all numbers. */
function firstReducible(root: MathNode): MathNode | undefined {
  let found: MathNode | undefined;
  const visit = (node: MathNode): void => {
    if (found !== undefined) return;
    const args = childArgs(node);
    for (const child of args) visit(child);
    if (found !== undefined) return;
    if ((node.type === 'OperatorNode' || node.type === 'FunctionNode') && args.length > 0 && args.every((a) => isConstant(unwrap(a)))) found = node;
  };
  visit(root);
  return found;
}

function childArgs(node: MathNode): MathNode[] {
  if (node.type === 'OperatorNode' || node.type === 'FunctionNode') return (node as unknown as { args: MathNode[] }).args;
  if (node.type === 'ParenthesisNode') return [(node as unknown as { content: MathNode }).content];
  return [];
}

function unwrap(node: MathNode): MathNode {
  return node.type === 'ParenthesisNode' ? unwrap((node as unknown as { content: MathNode }).content) : node;
}

function stripConstantParens(node: MathNode): MathNode {
  return node.transform((n) => (n.type === 'ParenthesisNode' && isConstant(unwrap(n)) ? unwrap(n) : n));
}

type Value = ReturnType<typeof exact.fraction> | number;

/** Exactly with fractions when possible, else in floating point (integers found that way stay exact). */
function evaluateNode(node: MathNode, scope: Record<string, Value> = {}): { value: Value; approximate: boolean } {
  try {
    const value: unknown = node.evaluate(scope);
    if (exact.isFraction(value)) return { value, approximate: false };
    if (typeof value === 'number' && Number.isFinite(value)) return { value, approximate: !Number.isInteger(value) };
  } catch {
    // fall through to floating point
  }
  const floatScope = Object.fromEntries(Object.entries(scope).map(([k, v]) => [k, toNumber(v)]));
  const value: unknown = float.evaluate(show(node, true), floatScope);
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`${show(node)} has no finite real value`);
  }
  return Number.isInteger(value) ? { value: exact.fraction(value), approximate: false } : { value, approximate: true };
}

function isConstant(node: MathNode): boolean {
  return node.type === 'ConstantNode';
}

function constantValue(node: MathNode): Value {
  return (node as unknown as { value: Value }).value;
}

function toNumber(value: Value): number {
  return typeof value === 'number' ? value : exact.number(value);
}

// ---- linear equations -------------------------------------------------------------------------

function solveEquation(lhsText: string, rhsText: string): MathSolution {
  const lhs = exact.parse(lhsText);
  const rhs = exact.parse(rhsText);
  const problem = `${show(lhs)} = ${show(rhs)}`;
  const left: MathNode = new exact.OperatorNode('-', 'subtract', [lhs, rhs]);
  const variables = freeVariables(left);
  if (variables.length === 0) {
    const l = evaluateNode(lhs).value;
    const r = evaluateNode(rhs).value;
    const holds = valuesEqual(l, r);
    return {
      canSolve: true,
      kind: 'arithmetic',
      problem,
      steps: [
        { title: 'Evaluate the left side', detail: `${show(lhs)} = ${formatValue(l)}` },
        { title: 'Evaluate the right side', detail: `${show(rhs)} = ${formatValue(r)}` },
        { title: 'Compare', detail: holds ? 'Both sides are equal, so the statement is true.' : 'The sides differ, so the statement is false.' },
      ],
      finalAnswer: holds ? 'true' : 'false',
      approximate: false,
    };
  }
  if (variables.length > 1) {
    return { canSolve: false, problem, reason: `the equation has ${variables.length} unknowns (${variables.join(', ')}); the local model solves equations in one variable` };
  }
  const v = variables[0]!;
  const slope = exact.derivative(left, v);
  if (freeVariables(slope).includes(v)) {
    return { canSolve: false, problem, reason: `the equation is not linear in ${v} (its derivative ${show(slope)} still depends on ${v}); the local model solves linear equations only` };
  }
  const at = (x: number): { value: Value; approximate: boolean } => evaluateNode(left, { [v]: exact.fraction(x) });
  const f0 = at(0);
  const f1 = at(1);
  const b = f0.value;
  const a = subtract(f1.value, b);
  let approximate = f0.approximate || f1.approximate;
  // Evaluating as a·x + b is only valid for a linear function: confirm at a third point.
  if (!valuesEqual(at(2).value, add(multiply(a, 2), b))) {
    return { canSolve: false, problem, reason: `the equation is not linear in ${v}` };
  }
  const steps: SolutionStep[] = [
    { title: 'Write the equation', detail: problem },
    { title: 'Bring every term to the left side', detail: `${show(left)} = 0` },
    {
      title: 'Collect like terms',
      detail: `The left side is linear in ${v}: at ${v} = 0 it equals ${formatValue(b)}, and each unit of ${v} adds ${formatValue(a)}, so the equation is ${linearForm(a, b, v)} = 0.`,
    },
  ];
  if (isZero(a)) {
    const identity = isZero(b);
    steps.push({
      title: identity ? 'Every value works' : 'No value works',
      detail: identity
        ? `The ${v} terms cancel and 0 = 0 holds for every ${v}.`
        : `The ${v} terms cancel, leaving ${formatValue(b)} = 0, which is false for every ${v}.`,
    });
    return { canSolve: true, kind: 'linear_equation', problem, steps, finalAnswer: identity ? `every real ${v}` : 'no solution', approximate };
  }
  const solution = divide(negate(b), a);
  approximate ||= typeof solution === 'number' && !Number.isInteger(solution);
  steps.push({
    title: `Isolate ${v}`,
    detail: `${formatCoefficient(a)}${v} = ${formatValue(negate(b))}, so ${v} = ${formatValue(negate(b))} / ${formatValue(a)} = ${formatValue(solution, approximate)}.`,
  });
  const checkLeft = evaluateNode(lhs, { [v]: solution }).value;
  const checkRight = evaluateNode(rhs, { [v]: solution }).value;
  const checks = valuesEqual(checkLeft, checkRight);
  steps.push({
    title: 'Check',
    detail: `Substituting ${v} = ${formatValue(solution, approximate)}: the left side is ${formatValue(checkLeft, approximate)} and the right side is ${formatValue(checkRight, approximate)}${checks ? ', so the solution checks out.' : ' — they differ, so the result is suspect.'}`,
  });
  if (!checks) return { canSolve: false, problem, reason: 'the computed solution did not satisfy the equation on substitution' };
  return { canSolve: true, kind: 'linear_equation', problem, steps, finalAnswer: `${v} = ${formatValue(solution, approximate)}`, approximate };
}

function freeVariables(node: MathNode): string[] {
  const names = new Set<string>();
  node.traverse((n, _path, parent) => {
    if (n.type !== 'SymbolNode') return;
    const name = (n as unknown as { name: string }).name;
    const isFunctionName = parent?.type === 'FunctionNode' && (parent as unknown as { fn: MathNode }).fn === n;
    if (!isFunctionName && !CONSTANTS.has(name)) names.add(name);
  });
  return [...names].sort();
}

// ---- values and formatting -------------------------------------------------------------------------

function isZero(value: Value): boolean {
  return typeof value === 'number' ? Math.abs(value) < 1e-12 : exact.isZero(value);
}

function valuesEqual(a: Value, b: Value): boolean {
  if (typeof a !== 'number' && typeof b !== 'number') return exact.equal(a, b) as boolean;
  const x = toNumber(a);
  const y = toNumber(b);
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
}

function arith(op: 'add' | 'subtract' | 'multiply' | 'divide', a: Value, b: Value): Value {
  if (typeof a !== 'number' && typeof b !== 'number') return exact[op](a, b) as Value;
  const x = toNumber(a);
  const y = toNumber(b);
  switch (op) {
    case 'add':
      return x + y;
    case 'subtract':
      return x - y;
    case 'multiply':
      return x * y;
    case 'divide':
      return x / y;
  }
}
const add = (a: Value, b: Value | number): Value => arith('add', a, typeof b === 'number' ? exact.fraction(b) : b);
const subtract = (a: Value, b: Value): Value => arith('subtract', a, b);
const multiply = (a: Value, b: number): Value => arith('multiply', a, typeof a === 'number' ? b : exact.fraction(b));
const divide = (a: Value, b: Value): Value => arith('divide', a, b);
const negate = (a: Value): Value => (typeof a === 'number' ? -a : exact.unaryMinus(a));

/** `84`, `7/2`, `-3`; floats to 10 significant digits, prefixed `≈` when asked. */
export function formatValue(value: Value, approximate = false): string {
  if (typeof value === 'number') {
    const text = Number.isInteger(value) ? String(value) : float.format(value, { precision: 10 });
    return approximate && !Number.isInteger(value) ? `≈ ${text}` : text;
  }
  return value.toFraction();
}

function formatCoefficient(a: Value): string {
  const text = formatValue(a);
  if (text === '1') return '';
  if (text === '-1') return '-';
  return text.includes('/') ? `(${text})` : text;
}

function linearForm(a: Value, b: Value, v: string): string {
  const head = isZero(a) ? '0' : `${formatCoefficient(a)}${v}`;
  if (isZero(b)) return head;
  const bText = formatValue(b);
  return bText.startsWith('-') ? `${head} - ${bText.slice(1)}` : `${head} + ${bText}`;
}

/**
 * mathjs' own printer, with exact constants shown as `12` or `(7/2)` instead of `12/1`; with
 * `fullPrecision`, floats keep every digit (for re-evaluation rather than display).
 */
function show(node: MathNode, fullPrecision = false): string {
  return node.toString({
    implicit: 'hide',
    handler: (n: MathNode) => {
      if (n.type !== 'ConstantNode') return undefined;
      const value = constantValue(n);
      if (typeof value !== 'number' && !exact.isFraction(value)) return undefined;
      const text = fullPrecision && typeof value === 'number' ? String(value) : formatValue(value);
      return /[/-]|e/.test(text) && n !== node ? `(${text})` : text;
    },
  });
}
