import { isConstantNode, isFunctionNode, isOperatorNode, isParenthesisNode, type MathNode } from 'mathjs';

/**
 * An upper bound on the degree of a polynomial expression (a power's integer exponent multiplies its
 * base's degree, a product adds, a sum takes the larger); 1 for anything else. What a symbolic
 * expansion or antiderivative costs grows with it.
 */
export function degreeBound(node: MathNode): number {
  if (isParenthesisNode(node)) return degreeBound(node.content);
  if (isConstantNode(node)) return 0;
  if (!isOperatorNode(node)) return 1;
  const [a, b] = node.args;
  if (node.fn === 'pow' && a !== undefined && b !== undefined) {
    const exponent = isConstantNode(b) ? Number(b.value) : Number.NaN;
    return Number.isInteger(exponent) && exponent >= 0 ? degreeBound(a) * exponent : 1;
  }
  if (node.fn === 'multiply') return node.args.reduce((sum, arg) => sum + degreeBound(arg), 0);
  if (node.fn === 'add' || node.fn === 'subtract') return Math.max(...node.args.map(degreeBound));
  return node.fn === 'unaryMinus' || node.fn === 'unaryPlus' ? degreeBound(a!) : 1;
}

/** How deep functions are applied inside one another ("sin(sin(x))": 2). */
export function functionDepth(node: MathNode): number {
  const inner = Math.max(0, ...childrenOf(node).map(functionDepth));
  return isFunctionNode(node) ? inner + 1 : inner;
}

function childrenOf(node: MathNode): MathNode[] {
  const children: MathNode[] = [];
  node.forEach((child) => children.push(child));
  return children;
}

/**
 * Steps a symbolic library call (nerdamer) on `node` is charged before it runs, since one call cannot
 * be interrupted: it expands powers first (time about as the degree's fourth power; measured degree 10
 * in ~0.1 s, 30 in ~0.7 s, 60 in ~5 s) and recurses through nested functions (about doubling per level:
 * sin nested 14 deep ~0.1 s, 40 deep ran for minutes).
 */
export function symbolicCost(node: MathNode): number {
  return degreeBound(node) ** 4 + 4 ** functionDepth(node);
}
