import { isConstantNode, isSymbolNode } from 'mathjs';
import { DEFAULT_MATHS_BUDGET, type MathsBudget, spend, TooMuchWork, withinBudget } from './core/budget.js';
import { pastExactRange, unheldConstantIn, unheldInSolution } from './core/exact-range.js';
import { solveArithmetic } from './solvers/arithmetic.js';
import { solveExpression } from './solvers/algebra.js';
import type { ProblemContext } from './solvers/context.js';
import { solveDerivative } from './solvers/derivative.js';
import { solveRelations } from './solvers/equations.js';
import { evaluateLogarithm } from './solvers/exponent-log.js';
import { solveGeometry } from './solvers/geometry.js';
import { solveIntegral } from './solvers/integral.js';
import { solveInterest } from './solvers/interest.js';
import { solveLimit } from './solvers/limit.js';
import { solvePercentOrRatio } from './solvers/percent-ratio.js';
import { solveSurd } from './solvers/surd.js';
import { solveConversion } from './solvers/conversion.js';
import { solveStatistics } from './solvers/statistics.js';
import { solveProbability } from './solvers/probability.js';
import { solveCoordinateLine } from './solvers/coordinate-line.js';
import { solveRightTriangle } from './solvers/right-triangle.js';
import { solveSpeedDistanceTime } from './solvers/speed-distance-time.js';
import { solveUnitConversion } from './solvers/unit-conversion.js';
import { roundAsAsked, type Rounding, roundingStep, withoutRounding } from './solvers/rounding.js';
import { formatDecimal, Rational } from './core/rational.js';
import { ambiguousComma, mathStatements, type MathStatement } from './text/extract.js';
import { detectIntent } from './text/intent.js';
import { normaliseMaths } from './text/normalise.js';
import { type MathsReading, readMaths, unknownsOf } from './text/reading.js';
import { strayToken } from './text/stray-tokens.js';
import { WORDED_UNKNOWN, type WordedReading } from './text/worded.js';
import type { EngineOutcome, EngineSolution, SolverResult } from './types.js';

export { MATHS_ENGINE_ID, MATHS_ENGINE_VERSION, MATHS_READING_VERSION } from './engine-id.js';

/**
 * Solves a school maths problem offline with worked steps, or declines. It claims a problem only
 * when one of its step generators recognises it completely (word problems must account for every
 * number), and every answer passes its category's check (substitution, expansion, differentiation,
 * numeric evaluation) before it is returned; a failed check is a decline, never an answer. The maths
 * is read by `readMaths`, the reading the maths signature keys a hit by. It does bounded work: a solve
 * that would spend more than `budget` (steps of its loops and library calls, and wall-clock time) is
 * refused as "too much work for the maths engine", never answered from the part that ran. A number
 * past 2^53 anywhere — in the problem's own maths, the answer or the working — is refused by name
 * whichever solver met it: past it the engine's doubles, and the checks that compare them, are not exact.
 */
export function solveProblem(text: string, budget: MathsBudget = DEFAULT_MATHS_BUDGET): EngineOutcome {
  const { result, exhaustedBy } = withinBudget(budget, () => solveRead(text));
  if (result === undefined) return { solved: false, inScope: true, reason: `too much work for the maths engine: ${exhaustedBy ?? 'the budget was spent'}` };
  const unheld = result.solved ? unheldInSolution(result) : undefined;
  return result.solved && unheld !== undefined ? { solved: false, inScope: true, category: result.category, reason: pastExactRange(unheld) } : result;
}

function solveRead(text: string): EngineOutcome {
  const reading = readMaths(text);
  if ('refused' in reading) return { solved: false, inScope: reading.inScope, reason: reading.refused };
  const { read } = reading;
  const unheld = [...read.statements, ...read.exactStatements].flatMap((st) => (st.kind === 'relation' ? [st.lhs, st.rhs] : [st.node])).map(unheldConstantIn).find((part) => part !== undefined);
  if (unheld !== undefined) return { solved: false, inScope: true, reason: pastExactRange(`${unheld} in the problem`) };
  if (read.worded !== undefined) return honouringRounding(solveWorded(text, read.worded, read.statements), read.rounding);
  const { normalised, statements, asks: target } = read;
  const lower = normalised.toLowerCase();
  // A problem in parts ("…, then find its y-intercept", "as a fraction and as a percentage", "then
  // double it") would be answered in its first part only: refused whole.
  if (MULTI_PART.test(lower) || (lower.match(/\?/g) ?? []).length > 1) {
    return { solved: false, inScope: false, reason: 'the problem has more than one part; the engine answers one question at a time' };
  }
  const ctx: ProblemContext = { text, normalised, lower, intent: detectIntent(lower), statements, ...(target === undefined ? {} : { asks: target }) };
  try {
    const routed = route(ctx);
    // A solver that answered without the rounding asked ("Solve 2x = 5 to the nearest whole number" was
    // answered 2.5): the algebra's answer rounded as asked instead, or a refusal, never the unrounded one.
    // A problem no solver answered, whose rounding instruction may be what stopped it ("the mean of 2, 3 and
    // 5 to 2 d.p.": the template accounts for every number, and "2" is not data): solved without the
    // instruction, then rounded as asked; the first refusal stands when that does not answer either.
    const result = routed?.solved === true ? (roundingHonoured(routed, read.rounding) ? routed : honouringRounding(roundedAsAsked(ctx, read) ?? routed, read.rounding)) : answeredOr(roundedAsAsked(ctx, read), routed);
    if (result?.solved === true) return withProblemAsRead(result, statements.length > 0 ? statements.map((st) => st.text).join(', ') : result.problem, target);
    return result ?? { solved: false, inScope: false, reason: 'the problem is not one the maths engine recognises' };
  } catch (error) {
    if (error instanceof TooMuchWork) throw error;
    // A check failed inside a step generator: decline rather than risk a wrong answer.
    return { solved: false, inScope: true, reason: `the engine's own check failed: ${(error as Error).message}` };
  }
}

/**
 * A worded problem, solved through the maths the worded reader wrote: the same solvers and checks,
 * the translation shown first, and the answer given in the asker's terms ("the number is 6").
 */
function solveWorded(text: string, reading: WordedReading, statements: readonly MathStatement[]): EngineOutcome {
  const intent = reading.kind === 'equation' ? 'solve' : 'evaluate';
  const ctx: ProblemContext = { text, normalised: reading.maths, lower: reading.maths.toLowerCase(), intent, statements };
  let result: SolverResult;
  try {
    result = route(ctx);
  } catch (error) {
    if (error instanceof TooMuchWork) throw error;
    return { solved: false, inScope: true, reason: `the engine's own check failed: ${(error as Error).message}` };
  }
  if (result?.solved !== true) return result ?? { solved: false, inScope: false, reason: 'the worded problem reads as maths the engine does not solve' };
  const translation = reading.clauses.map((c) => `"${c.words}" reads as ${c.maths.replace(/\s*\*\s*/g, ' × ')}`).join('; ');
  const forTheNumber = reading.kind === 'equation' ? `; solving for the number (${WORDED_UNKNOWN})` : '';
  const answered = reading.kind === 'equation' && result.answer.kind === 'roots' ? inTheAskersTerms(result.finalAnswer) : result.finalAnswer;
  return { ...result, finalAnswer: answered, steps: [{ title: 'The problem as read', detail: `${translation}${forTheNumber}` }, ...result.steps] };
}

/** "n = 6" → "the number is 6"; "n = 3 or n = -3" → "the number is 3 or -3" (the engine writes each root as `n = value`). */
function inTheAskersTerms(finalAnswer: string): string {
  const values = finalAnswer.split(' or ').map((part) => part.replace(new RegExp(`^${WORDED_UNKNOWN} = `), ''));
  return `the number is ${values.join(' or ')}`;
}

const MULTI_PART = /\bthen\s+(?:find|calculate|work out|give|state|write|double|halve|add|subtract|multiply|divide|square|use|hence)\b|,\s*then\b|\balso\b|\bhence\b|\band\s+(?:then|also|hence|as|find|calculate|work out|give|state|double|halve|add|subtract|multiply|divide|square)\b/;

/** The first result when it answers; otherwise the other one's, when there is one. */
function answeredOr(first: SolverResult, other: SolverResult): SolverResult {
  return first?.solved === true ? first : (other ?? first);
}

/**
 * Maths with a rounding instruction no solver read ("Evaluate 22/7 to 2 d.p.", "Find the mean of 2, 3
 * and 5 to 2 d.p."): solved without the instruction — by a word problem's template, else by the algebra
 * — then its real numeric answer rounded as asked, its unit kept, the exact answer kept for checking.
 * Other answers (expressions, inequalities, points) are not rounded: refused.
 */
function roundedAsAsked(ctx: ProblemContext, read: MathsReading): SolverResult {
  const { rounding, exactStatements: statements, asks: target } = read;
  if (rounding === undefined) return undefined;
  const normalised = withoutRounding(ctx.normalised);
  const plain: ProblemContext = { ...ctx, normalised, lower: normalised.toLowerCase() };
  const template = solveWordProblem(plain);
  const algebraReads = statements.length > 0 && (target === undefined || statements.flatMap(unknownsOf).includes(target));
  const exact = template ?? (algebraReads ? routeAlgebra({ ...plain, statements }) : undefined);
  if (exact?.solved !== true) return exact;
  const { answer } = exact;
  const values = answer.kind === 'number' ? [{ re: answer.value, exact: answer.exact }] : answer.kind === 'roots' && answer.roots.every((r) => r.im === 0) ? answer.roots : undefined;
  if (values === undefined) return { solved: false, inScope: true, category: exact.category, reason: 'a rounding instruction for an answer that is not a number' };
  const unit = answer.kind === 'number' ? answer.unit : undefined;
  // Money is already rounded to the cent, exactly: rounding that again to other places would round twice.
  if (unit !== undefined && CURRENCY.test(unit) && !(rounding.kind === 'decimal places' && rounding.places === 2)) return { solved: false, inScope: true, category: exact.category, reason: 'money is given to the cent; another rounding of it is not made' };
  // An exact (rational) answer is rounded exactly; a double only where it is far enough from a half, and
  // its units held, for its rounding to be the number's.
  const rounded: { readonly text: string; readonly from: string }[] = [];
  for (const v of values) {
    const exactValue = v.exact === undefined ? undefined : Rational.parseFraction(v.exact);
    const result = roundAsAsked(exactValue ?? v.re, rounding);
    if ('refused' in result) return { solved: false, inScope: true, category: exact.category, reason: result.refused };
    rounded.push({ text: result.text, from: exactValue?.toString() ?? formatDecimal(v.re, 10) });
  }
  const withUnit = (value: string): string => (unit === undefined ? value : CURRENCY.test(unit) ? `${unit}${value}` : `${value} ${unit.replace('^2', '²').replace('^3', '³')}`);
  const finalAnswer = answer.kind === 'roots' ? rounded.map((r) => `${answer.variable} ≈ ${r.text}`).join(' or ') : `≈ ${withUnit(rounded[0]!.text)}`;
  const steps = rounded.map((r) => roundingStep(r.from, r.text, rounding));
  // The problem as read names the instruction too ("solving 22/7, rounded to 2 decimal places").
  const problem = `${template === undefined ? statements.map((st) => st.text).join(', ') : exact.problem}, rounded to ${rounding.places} ${rounding.places === 1 ? rounding.kind.replace(/s$/, '') : rounding.kind}`;
  return { ...exact, problem, steps: [...exact.steps, ...steps], finalAnswer };
}

/** Whether a solution answers as `rounding` asks (its steps round as asked; a solver that reads the instruction itself does). */
function roundingHonoured(solution: EngineSolution, rounding: Rounding | undefined): boolean {
  if (rounding === undefined) return true;
  const asked = roundingStep(0, '', rounding).title;
  return solution.steps.some((step) => step.title === asked);
}

/** A solution that ignored the rounding asked is refused by name: an unrounded answer to "to the nearest tenth" is a wrong one. */
function honouringRounding<R extends SolverResult>(result: R, rounding: Rounding | undefined): R | EngineOutcome {
  if (result?.solved !== true || roundingHonoured(result, rounding)) return result;
  return { solved: false, inScope: true, category: result.category, reason: 'a rounding instruction the engine cannot apply to this answer' };
}

/** The solution opens with the problem as the engine read it, so a misreading shows at once ("solving 5y - 4 = 2y + 11 for y"). */
function withProblemAsRead(solution: EngineSolution, asRead: string, target: string | undefined): EngineSolution {
  const detail = `solving ${asRead}${target === undefined ? '' : ` for ${target}`}`;
  return { ...solution, steps: [{ title: 'The problem as read', detail }, ...solution.steps] };
}

/** The first piece of mathematics in the text (as written), or undefined when it has none. */
export function findMaths(text: string): string | undefined {
  if (/\\[A-Za-z]+|[{}]/.test(text)) return undefined;
  const normalised = normaliseMaths(text);
  if (strayToken(normalised) !== undefined || ambiguousComma(normalised) !== undefined) return undefined;
  return mathStatements(normalised).find((s) => s.kind === 'relation' || !(isConstantNode(s.node) || isSymbolNode(s.node)))?.text;
}

function route(ctx: ProblemContext): SolverResult {
  switch (ctx.intent) {
    case 'differentiate':
      return solveDerivative(ctx);
    case 'integrate':
      return solveIntegral(ctx);
    case 'limit':
      return solveLimit(ctx);
    default:
      break;
  }
  const wordProblem = solveWordProblem(ctx);
  if (wordProblem !== undefined) return wordProblem;
  // A word problem of a kind a template reads, that no template read: not handed to the algebra, which
  // would answer some fragment of it ("legs 5 cm and 12 m" is not the expression "12 m").
  if (/%|percent|\bratio\b|\binterest\b|\bspeed\b|\barea\b|\bvolume\b|\bperimeter\b|\btriangle\b|\bhypotenuse\b|\bprobability\b|\bchance\b|\b(?:mean|median|mode|average)\b|\bgradient\b|\bslope\b|\bmid-?point\b|\bdistance\b|\bdice?\b|\bcoin\b/.test(ctx.lower)) {
    return { solved: false, inScope: false, reason: 'a word problem the engine has no template for' };
  }
  return routeAlgebra(ctx);
}

const WORD_PROBLEMS = [solveConversion, solveStatistics, solveProbability, solveCoordinateLine, solveRightTriangle, solveInterest, solvePercentOrRatio, solveGeometry, solveSpeedDistanceTime, solveUnitConversion];
/** A currency, written before its amount ("$1.01"); other units follow it ("2.50 m"). */
const CURRENCY = /^[$£€¥]$/;

/** The first word-problem template that reads the text. */
function solveWordProblem(ctx: ProblemContext): SolverResult {
  for (const wordProblem of WORD_PROBLEMS) {
    const result = wordProblem(ctx);
    if (result !== undefined) return result;
    spend(0, 'trying the word-problem templates');
  }
  return undefined;
}

/** Equations, systems, inequalities and expressions, read from the statements. */
function routeAlgebra(ctx: ProblemContext): SolverResult {
  const relations = solveRelations(ctx);
  if (relations !== undefined) return relations;
  spend(0, 'solving the equations');
  const expressions = ctx.statements.filter((s) => s.kind === 'expression');
  if (expressions.length !== 1 || ctx.statements.length !== 1) return undefined;
  const [statement] = expressions;
  const intent = ctx.intent ?? 'evaluate';
  const expression = solveExpression(statement!.node, intent);
  if (expression !== undefined) return expression;
  return evaluateLogarithm(statement!.node, intent) ?? (intent === 'simplify' ? solveSurd(statement!.node, intent) : undefined) ?? solveArithmetic(statement!.node, intent);
}
