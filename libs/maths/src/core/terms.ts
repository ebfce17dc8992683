import { isOperatorNode, isParenthesisNode, type MathNode } from 'mathjs';
import { mj } from './mathjs.js';

/** The node without enclosing parentheses. */
export function stripParentheses(node: MathNode): MathNode {
  return isParenthesisNode(node) ? stripParentheses(node.content) : node;
}

/** The terms of a sum (subtracted terms negated), for step-by-step term-wise work. */
export function sumTerms(node: MathNode): MathNode[] {
  if (isOperatorNode(node) && (node.fn === 'add' || node.fn === 'subtract') && node.args.length === 2) {
    const right = sumTerms(stripParentheses(node.args[1]!));
    return [...sumTerms(stripParentheses(node.args[0]!)), ...(node.fn === 'add' ? right : right.map((t) => new mj.OperatorNode('-', 'unaryMinus', [t])))];
  }
  return [node];
}
