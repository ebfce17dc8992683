import type { MathNode } from 'mathjs';
import { spend } from '../core/budget.js';
import { type ExactInterval, contains, describeSet, holds, intersect, intervalNotationTex, isEmptyInterval, linearSolution, setAnswer, unionOf } from '../core/interval-set.js';
import { texOf } from '../core/mathjs.js';
import { type AbsoluteChoice, breakpoints, type Case, casesBetween, holdsAbs, linearAround, type PiecewiseLinear, readPiecewise, valueAt } from '../core/piecewise-linear.js';
import { Rational } from '../core/rational.js';
import type { Intent, RelationOp, SolverResult, Step } from '../types.js';
import { m } from './context.js';
import { exactWithDecimal } from './format.js';

const TEX: Record<RelationOp, string> = { '=': '=', '<': '<', '<=': '\\le', '>': '>', '>=': '\\ge' };

/**
 * An equation or inequality in one unknown whose sides are linear terms and absolute values of such
 * ("|x − 3| < 5", "|2x + 1| ≥ 3", "|x − 1| + |x + 2| = 5", "2|x − 1| + 3 < 7"). The general method: the
 * values where an absolute value's argument is zero cut the line into cases; in each case every
 * absolute value is its argument or its negation, so the relation is linear there and solved exactly,
 * then intersected with the case; the cases' solutions are united. The answer (every value, none,
 * an equation's roots or a union of intervals) is checked against the original relation, evaluated
 * exactly with |a| as a magnitude, at every end and breakpoint and at a value inside each gap between
 * them: a check of the whole line. Undefined when neither side holds an absolute value.
 */
export function solveAbsoluteValue(lhs: MathNode, rhs: MathNode, op: RelationOp, variable: string, intent: Intent): SolverResult {
  if (!holdsAbs(lhs) && !holdsAbs(rhs)) return undefined;
  const [left, right] = [readPiecewise(lhs, variable), readPiecewise(rhs, variable)];
  const outside = (reason: string): SolverResult => ({ solved: false, inScope: false, category: 'absolute_value', reason: `an absolute-value ${op === '=' ? 'equation' : 'inequality'} outside the case method: ${reason}` });
  if ('refused' in left) return outside(left.refused);
  if ('refused' in right) return outside(right.refused);
  const difference: PiecewiseLinear = { kind: 'sum', terms: [left, { kind: 'scaled', factor: Rational.of(-1), of: right }] };
  const problem = `${texOf(lhs)} ${TEX[op]} ${texOf(rhs)}`;
  const x = variable;
  const points = breakpoints(difference, x);
  const steps: Step[] = [{ title: `Write the ${op === '=' ? 'equation' : 'inequality'}`, detail: m(problem) }];
  const cases = casesBetween(points);
  steps.push({
    title: 'Split into cases where each absolute value keeps its sign',
    detail: points.length === 0 ? 'No absolute value changes sign: one case, the whole line.' : `The absolute values change sign at ${points.map((p) => m(`${x} = ${p.toTex()}`)).join(', ')}, which cut the line into ${cases.length} cases.`,
  });
  const pieces: ExactInterval[] = [];
  for (const piece of cases) {
    spend(1, 'splitting an absolute value into cases');
    const range = caseRange(piece);
    const choices: AbsoluteChoice[] = [];
    const [leftForm, rightForm] = [linearAround(left, x, piece.inside, choices), linearAround(right, x, piece.inside, [])];
    const [constant = Rational.ZERO, slope = Rational.ZERO] = leftForm.sub(rightForm).coefficients(x) ?? [];
    const solution = intersect(linearSolution(slope, constant, op), range);
    const kept = isEmptyInterval(solution) ? [] : [solution];
    pieces.push(...kept);
    const written = choices.map((c) => m(`|${texOf(c.argument)}| = ${c.negated ? `-(${c.form.toTex()})` : c.form.toTex()}`)).join(', ');
    const answer = kept.length === 0 ? 'no value in this case' : `${m(describeSet(kept, x, true))} in this case`;
    steps.push({ title: `Case ${m(describeSet([range], x, true))}`, detail: `${written === '' ? '' : `${written}; `}the relation reads ${m(`${leftForm.toTex()} ${TEX[op]} ${rightForm.toTex()}`)}: ${answer}.` });
  }
  const set = unionOf(pieces);
  checkOnTheWholeLine(set, difference, op, x, points);
  const answer = setAnswer(set, x, op === '=');
  steps.push({
    title: 'Combine the cases',
    detail: set.length === 0 ? 'No case has a solution.' : `${m(describeSet(set, x, true))}, in interval notation ${m(intervalNotationTex(set))}.`,
  });
  steps.push({ title: 'Check', detail: 'Every end of the solution, every value where an absolute value changes sign, and a value between each two of them (and beyond them) substituted into the original relation (exact).' });
  return {
    solved: true,
    category: 'absolute_value',
    intent,
    problem,
    steps,
    finalAnswer: finalAnswerOf(answer.kind, set, x),
    answer,
    verification: 'every end, every sign change and a value in each gap between them substituted into the original relation (exact)',
  };
}

/** A case as an interval of the line: each breakpoint belongs to the case on its right (where the same form holds, by continuity). */
function caseRange(piece: Case): ExactInterval {
  return { ...(piece.from === undefined ? {} : { from: { at: piece.from, closed: true } }), ...(piece.to === undefined ? {} : { to: { at: piece.to, closed: false } }) };
}

function finalAnswerOf(kind: string, set: readonly ExactInterval[], x: string): string {
  if (kind === 'no_solution') return 'no solution';
  if (kind === 'all_values') return `every real number ${x}`;
  if (kind === 'roots') return set.map((i) => i.from!.at).sort((a, b) => b.compare(a)).map((r) => `${x} = ${exactWithDecimal(r)}`).join(' or ');
  return describeSet(set, x);
}

/**
 * The set against the original relation on the whole line: it is a union of intervals whose ends are
 * among the breakpoints and its own ends, so the relation holding exactly at each of those values and
 * at one value inside each gap between them (and one beyond each side) is holding everywhere the set says.
 */
function checkOnTheWholeLine(set: readonly ExactInterval[], difference: PiecewiseLinear, op: RelationOp, x: string, points: readonly Rational[]): void {
  const ends = set.flatMap((i) => [i.from?.at, i.to?.at]).filter((v): v is Rational => v !== undefined);
  const critical = [...points, ...ends].sort((a, b) => a.compare(b)).filter((v, i, all) => i === 0 || !v.equals(all[i - 1]!));
  const probes = casesBetween(critical).map((c) => c.inside);
  for (const value of [...critical, ...probes]) {
    if (holds(valueAt(difference, x, value), op) !== contains(set, value)) throw new Error(`the absolute-value solution fails its check at ${x} = ${value.toString()}`);
  }
}
