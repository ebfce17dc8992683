import { Rational } from '../core/rational.js';
import { SurdSum } from '../core/surd-sum.js';
import type { SolverResult, Step } from '../types.js';
import type { ProblemContext } from './context.js';
import { m } from './context.js';
import { exactWithDecimal } from './format.js';
import { exact, usesEveryNumber } from './word-support.js';
import { sameNumber } from '../core/same-number.js';

const POINT = /\(\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)/g;

type Point = readonly [Rational, Rational];
const texPoint = ([x, y]: Point): string => `(${x.toTex()}, ${y.toTex()})`;

/**
 * The line through two points written as (x, y): its gradient, the midpoint, the distance between
 * the points, or its equation y = mx + c. Exact arithmetic throughout (a distance stays a surd).
 * Checks: both points satisfy the equation found (and lie on a line of the gradient found), the
 * midpoint is the same distance from each point, and the distance squared equals Δx² + Δy².
 */
export function solveCoordinateLine(ctx: ProblemContext): SolverResult {
  const t = ctx.lower;
  const named = [
    /\b(gradient|slope)\b/.test(t) && !/\bequation\b/.test(t) ? 'gradient' : undefined,
    /\bmid-?point\b/.test(t) ? 'midpoint' : undefined,
    /\bdistance\b|\blength of the (?:line )?segment\b/.test(t) ? 'distance' : undefined,
    /\bequation of the (?:straight )?line\b/.test(t) ? 'equation' : undefined,
  ].filter((a) => a !== undefined);
  if (named.length > 1) return { solved: false, inScope: false, reason: `the problem asks for more than one thing (${named.join(', ')}); ask one at a time` };
  const asks = named[0];
  if (asks === undefined) return undefined;
  const points = [...t.matchAll(POINT)].map((p): Point => [exact(p[1]!), exact(p[2]!)]);
  if (points.length !== 2 || !usesEveryNumber(t, points.flatMap(([x, y]) => [Math.abs(x.toNumber()), Math.abs(y.toNumber())]))) return undefined;
  const [[x1, y1], [x2, y2]] = points as [Point, Point];
  const [dx, dy] = [x2.sub(x1), y2.sub(y1)];
  const problem = `the ${asks} of ${texPoint(points[0]!)} and ${texPoint(points[1]!)}`;
  const steps: Step[] = [{ title: 'Name the points', detail: m(`(x_1, y_1) = ${texPoint(points[0]!)},\\ (x_2, y_2) = ${texPoint(points[1]!)}`) }];
  const decline = (reason: string): SolverResult => ({ solved: false, inScope: true, category: 'coordinate_geometry', reason });
  const solved = (finalAnswer: string, answer: Extract<SolverResult, { solved: true }>['answer'], verification: string): SolverResult => ({
    solved: true,
    category: 'coordinate_geometry',
    intent: 'evaluate',
    problem,
    steps,
    finalAnswer,
    answer,
    verification,
  });
  switch (asks) {
    case 'gradient':
    case 'equation': {
      if (dx.isZero) return decline(dy.isZero ? 'the two points are the same point' : `the line is vertical (x = ${x1.toString()}): its gradient is undefined`);
      const gradient = dy.div(dx);
      steps.push({ title: 'Gradient = change in y ÷ change in x', detail: m(`m = \\frac{${y2.toTex()} - (${y1.toTex()})}{${x2.toTex()} - (${x1.toTex()})} = \\frac{${dy.toTex()}}{${dx.toTex()}} = ${gradient.toTex()}`) });
      if (!y1.add(gradient.mul(dx)).equals(y2)) throw new Error('the gradient does not carry the first point to the second');
      if (asks === 'gradient') return solved(exactWithDecimal(gradient), { kind: 'number', value: gradient.toNumber() }, 'moving Δx from the first point at this gradient reaches the second point exactly');
      const intercept = y1.sub(gradient.mul(x1));
      steps.push({ title: 'Find the intercept c from y = mx + c at the first point', detail: m(`c = ${y1.toTex()} - (${gradient.toTex()})(${x1.toTex()}) = ${intercept.toTex()}`) });
      for (const [x, y] of points) if (!gradient.mul(x).add(intercept).equals(y)) throw new Error('a point does not satisfy the equation found');
      const slopeText = gradient.equals(Rational.ONE) ? 'x' : gradient.equals(Rational.of(-1)) ? '-x' : gradient.isZero ? '' : `${gradient.isInteger ? gradient.toString() : `(${gradient.toString()})`}x`;
      const interceptText = intercept.isZero ? (slopeText === '' ? '0' : '') : slopeText === '' ? intercept.toString() : intercept.sign < 0 ? ` - ${intercept.abs().toString()}` : ` + ${intercept.toString()}`;
      steps.push({ title: 'Check both points', detail: 'Substituting each point into the equation gives a true statement.' });
      return solved(`y = ${slopeText}${interceptText}`, { kind: 'expression', expression: `(${gradient.toString()}) * x + (${intercept.toString()})`, variables: ['x'], upToConstant: false }, 'both points satisfy the equation (exact)');
    }
    case 'midpoint': {
      const middle: Point = [x1.add(x2).div(Rational.of(2)), y1.add(y2).div(Rational.of(2))];
      steps.push({ title: 'Average the coordinates', detail: m(`\\left(\\frac{${x1.toTex()} + ${x2.toTex()}}{2}, \\frac{${y1.toTex()} + ${y2.toTex()}}{2}\\right) = ${texPoint(middle)}`) });
      const squared = (p: Point): Rational => p[0].sub(middle[0]).pow(2).add(p[1].sub(middle[1]).pow(2));
      if (!squared(points[0]!).equals(squared(points[1]!))) throw new Error('the midpoint is not equidistant from the two points');
      return solved(`(${middle[0].toString()}, ${middle[1].toString()})`, { kind: 'point', coordinates: [middle[0].toNumber(), middle[1].toNumber()] }, 'the midpoint is the same distance from both points (exact)');
    }
    case 'distance': {
      const squared = dx.pow(2).add(dy.pow(2));
      const distance = SurdSum.sqrt(squared);
      steps.push({ title: 'Use Pythagoras on the differences', detail: m(`d = \\sqrt{(${dx.toTex()})^2 + (${dy.toTex()})^2} = \\sqrt{${squared.toTex()}} = ${distance.toTex()}`) });
      const value = distance.toNumber();
      if (!sameNumber(value * value, squared.toNumber())) throw new Error('the distance squared is not Δx² + Δy²');
      const exactText = distance.toString();
      return solved(distance.asRational() !== undefined ? exactText : `${exactText} ≈ ${value.toFixed(3)}`, { kind: 'number', value }, 'the distance squared equals Δx² + Δy²');
    }
  }
}
