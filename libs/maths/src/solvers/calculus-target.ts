import { isFunctionNode, isSymbolNode, type MathNode } from 'mathjs';
import { freeVariables } from '../core/mathjs.js';
import type { ProblemContext } from './context.js';

/**
 * The function a calculus problem is about: the right side of `f(x) = …` or `y = …`, else the
 * longest expression with an unknown. The variable is the one named by "with respect to", "dx" or
 * the only unknown.
 */
export function calculusTarget(ctx: ProblemContext, statements = ctx.statements): { node: MathNode; variable: string } | undefined {
  let node: MathNode | undefined;
  for (const s of statements) {
    if (s.kind !== 'relation' || s.op !== '=') continue;
    const lhs = s.lhs;
    if ((isFunctionNode(lhs) && ['f', 'g', 'h'].includes(lhs.fn.name)) || (isSymbolNode(lhs) && lhs.name === 'y')) node = s.rhs;
  }
  if (node === undefined) {
    const candidates = statements.filter((s) => s.kind === 'expression' && freeVariables(s.node).length > 0);
    candidates.sort((a, b) => b.text.length - a.text.length);
    const best = candidates[0];
    if (best?.kind === 'expression') node = best.node;
  }
  if (node === undefined) return undefined;
  const variables = freeVariables(node);
  const named = /with respect to ([a-z])\b|\bd([a-z])\b|d\/d([a-z])\b/.exec(ctx.lower);
  const variable = named?.[1] ?? named?.[2] ?? named?.[3] ?? (variables.length === 1 ? variables[0] : variables.includes('x') ? 'x' : undefined);
  if (variable === undefined || !variables.includes(variable)) return undefined;
  if (variables.length > 1) return undefined;
  return { node, variable };
}
