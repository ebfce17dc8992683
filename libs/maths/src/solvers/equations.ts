import { freeVariables } from '../core/mathjs.js';
import { Polynomial } from '../core/polynomial.js';
import type { MathStatement } from '../text/extract.js';
import type { SolverResult } from '../types.js';
import { type ProblemContext, decline } from './context.js';
import { solveAbsoluteValue } from './absolute-value.js';
import { solveExponentialOrLogEquation } from './exponent-log.js';
import { solveLinearEquation } from './linear-equation.js';
import { solveLinearInequality } from './linear-inequality.js';
import { solveLinearSystem } from './linear-system.js';
import { solveQuadraticEquation } from './quadratic-equation.js';
import { solveRearrangement } from './rearrangement.js';

type Relational = Extract<MathStatement, { kind: 'relation' }>;

/**
 * Equations, systems and inequalities: one equation in one unknown (linear, quadratic, exponential
 * or logarithmic), two or three linear equations in as many unknowns, one linear inequality, or one
 * equation or inequality in absolute values of linear terms.
 */
export function solveRelations(ctx: ProblemContext): SolverResult {
  const relations = ctx.statements.filter((s): s is Relational => s.kind === 'relation');
  if (relations.length === 0) return undefined;
  const intent = ctx.intent ?? 'solve';
  const equations = relations.filter((r) => r.op === '=');
  if (equations.length >= 2) {
    if (equations.length !== relations.length || equations.length > 3) return { solved: false, inScope: false, reason: 'more relations than a 2×2 or 3×3 system' };
    const parsed = equations.map((e) => ({ lhs: e.lhs, rhs: e.rhs, left: Polynomial.fromNode(e.lhs), right: Polynomial.fromNode(e.rhs) }));
    if (parsed.some((p) => p.left === undefined || p.right === undefined)) return { solved: false, inScope: false, reason: 'a system with non-polynomial equations' };
    const system = parsed.map((p) => ({ lhs: p.lhs, rhs: p.rhs, difference: p.left!.sub(p.right!) }));
    const variables = [...new Set(system.flatMap((e) => e.difference.variables()))].sort();
    if (variables.length !== equations.length) return { solved: false, inScope: false, reason: `${equations.length} equations in ${variables.length} unknowns` };
    if (system.some((e) => e.difference.degree() > 1)) return { solved: false, inScope: false, reason: 'a non-linear system' };
    return solveLinearSystem(system, variables, intent);
  }
  if (relations.length !== 1) return undefined;
  const [relation] = relations as [Relational];
  const variables = [...new Set([...freeVariables(relation.lhs), ...freeVariables(relation.rhs)])];
  if (variables.length > 1) {
    // A formula asked to be rearranged ("make t the subject of v = u + at"): its answer is a formula.
    const rearranged = relation.op === '=' ? solveRearrangement(ctx.lower, ctx.asks, relation.lhs, relation.rhs, variables, intent) : undefined;
    return rearranged ?? { solved: false, inScope: false, reason: `one relation in ${variables.length} unknowns` };
  }
  const left = Polynomial.fromNode(relation.lhs);
  const right = Polynomial.fromNode(relation.rhs);
  if (variables.length === 0) return undefined; // a numeric statement: arithmetic decides
  const variable = variables[0]!;
  if (left === undefined || right === undefined) {
    const absolute = solveAbsoluteValue(relation.lhs, relation.rhs, relation.op, variable, intent);
    if (absolute !== undefined) return absolute;
    if (relation.op !== '=') return { solved: false, inScope: false, reason: 'a non-polynomial inequality' };
    return solveExponentialOrLogEquation(relation.lhs, relation.rhs, variable, intent);
  }
  const degree = left.sub(right).degree();
  if (relation.op !== '=') {
    if (degree !== 1) return { solved: false, inScope: false, reason: 'only linear inequalities are in scope' };
    return solveLinearInequality(relation.lhs, relation.rhs, relation.op, left, right, variable, intent) ?? decline('linear_inequality', 'the variable cancels');
  }
  if (degree <= 1) return solveLinearEquation(relation.lhs, relation.rhs, left, right, variable, intent);
  if (degree === 2) return solveQuadraticEquation(relation.lhs, relation.rhs, left.sub(right), variable, intent);
  return { solved: false, inScope: false, reason: `a polynomial equation of degree ${degree} (the engine solves linear and quadratic equations)` };
}
