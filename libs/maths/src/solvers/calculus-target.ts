import { isFunctionNode, isSymbolNode, type MathNode } from 'mathjs';
import { freeVariables } from '../core/mathjs.js';
import type { ProblemContext } from './context.js';

/**
 * The function a calculus problem is about: the right side of `f(x) = …` or `y = …`, else the
 * longest expression with an unknown. The variable is the one named by "with respect to", "dx" or
 * the only unknown.
 */
export function calculusTarget(ctx: ProblemContext, statements = ctx.statements): { node: MathNode; variable: string; name: string } | undefined {
  let node: MathNode | undefined;
  /** How the problem names the function: f (f(x) = …, or unnamed), g, h or y. */
  let name = 'f';
  for (const s of statements) {
    if (s.kind !== 'relation' || s.op !== '=') continue;
    const lhs = s.lhs;
    if (isFunctionNode(lhs) && ['f', 'g', 'h'].includes(lhs.fn.name)) [node, name] = [s.rhs, lhs.fn.name];
    if (isSymbolNode(lhs) && lhs.name === 'y') [node, name] = [s.rhs, 'y'];
  }
  if (node === undefined) {
    const expressions = statements.filter((s) => s.kind === 'expression');
    const candidates = expressions.filter((s) => freeVariables(s.node).length > 0);
    candidates.sort((a, b) => b.text.length - a.text.length);
    // A lone constant is a function too ("integrate 5"), when it is the only maths there is.
    const best = candidates[0] ?? (expressions.length === 1 ? expressions[0] : undefined);
    if (best?.kind === 'expression') node = best.node;
  }
  if (node === undefined) return undefined;
  const variables = freeVariables(node);
  const named = /d\/d([a-z])\b/.exec(ctx.lower)?.[1] ?? /with respect to ([a-z])\b/.exec(ctx.lower)?.[1] ?? /\bd([a-z])\s*(?:$|[.?!,]|from\b)/.exec(ctx.lower)?.[1];
  const variable = named ?? (variables.length === 1 ? variables[0] : variables.length === 0 ? 'x' : undefined);
  if (variable === undefined || (variables.length > 0 && !variables.includes(variable))) return undefined;
  if (variables.length > 1) return undefined;
  return { node, variable, name };
}
