import { isConstantNode, isSymbolNode } from 'mathjs';
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
import { roundedText, roundingAsked, roundingStep, withoutRounding } from './solvers/rounding.js';
import { freeVariables } from './core/mathjs.js';
import { askedFor } from './text/asked-for.js';
import { ambiguousComma, mathStatements, type MathStatement } from './text/extract.js';
import { detectIntent } from './text/intent.js';
import { normaliseMaths } from './text/normalise.js';
import { strayToken } from './text/stray-tokens.js';
import { readWorded, WORDED_UNKNOWN, type WordedReading } from './text/worded.js';
import type { EngineOutcome, EngineSolution, SolverResult } from './types.js';

/** Engine name and version, recorded in a solution's provenance. */
export const MATHS_ENGINE_ID = 'openpaw/maths-engine';
export const MATHS_ENGINE_VERSION = 'maths-v1';

const MAX_TEXT = 2_000;

/**
 * Solves a school maths problem offline with worked steps, or declines. It claims a problem only
 * when one of its step generators recognises it completely (word problems must account for every
 * number), and every answer passes its category's check (substitution, expansion, differentiation,
 * numeric evaluation) before it is returned; a failed check is a decline, never an answer.
 */
export function solveProblem(text: string): EngineOutcome {
  if (text.length > MAX_TEXT) return { solved: false, inScope: false, reason: 'the problem text is too long for the maths engine' };
  if (/\\[A-Za-z]+|[{}]/.test(text)) return { solved: false, inScope: false, reason: 'the problem uses LaTeX or other notation the maths engine does not read' };
  const worded = readWorded(text);
  if (worded !== undefined && 'ambiguous' in worded) return { solved: false, inScope: false, reason: `the wording is ambiguous: ${worded.ambiguous}` };
  if (worded !== undefined) return solveWorded(text, worded.read);
  const normalised = normaliseMaths(text);
  const stray = strayToken(normalised);
  if (stray !== undefined) return { solved: false, inScope: false, reason: `"${stray}" sits in the maths and is neither a number, an unknown nor an operator the engine reads` };
  const comma = ambiguousComma(normalised);
  if (comma !== undefined) return { solved: false, inScope: false, reason: `the comma in "${comma}" may be a decimal comma or separate two numbers; write the decimal with a point` };
  const lower = normalised.toLowerCase();
  const statements = mathStatements(normalised).filter((s) => s.kind === 'relation' || !(isConstantNode(s.node) || isSymbolNode(s.node)));
  const target = askedFor(normalised);
  const unknowns = new Set(statements.flatMap(unknownsOf));
  if (target !== undefined && statements.length > 0 && unknowns.size > 0 && !unknowns.has(target)) {
    return { solved: false, inScope: false, reason: `the problem asks for ${target}, but its maths is in ${[...unknowns].sort().join(', ')}` };
  }
  // A problem in parts ("…, then find its y-intercept", "as a fraction and as a percentage", "then
  // double it") would be answered in its first part only: refused whole.
  if (MULTI_PART.test(lower) || (lower.match(/\?/g) ?? []).length > 1) {
    return { solved: false, inScope: false, reason: 'the problem has more than one part; the engine answers one question at a time' };
  }
  const ctx: ProblemContext = { text, normalised, lower, intent: detectIntent(lower), statements };
  try {
    const result = route(ctx) ?? roundedAsAsked(ctx, target);
    if (result?.solved === true) return withProblemAsRead(result, statements.length > 0 ? statements.map((st) => st.text).join(', ') : result.problem, target);
    return result ?? { solved: false, inScope: false, reason: 'the problem is not one the maths engine recognises' };
  } catch (error) {
    // A check failed inside a step generator: decline rather than risk a wrong answer.
    return { solved: false, inScope: true, reason: `the engine's own check failed: ${(error as Error).message}` };
  }
}

/**
 * A worded problem, solved through the maths the worded reader wrote: the same solvers and checks,
 * the translation shown first, and the answer given in the asker's terms ("the number is 6").
 */
function solveWorded(text: string, reading: WordedReading): EngineOutcome {
  const statements = mathStatements(reading.maths);
  if (statements.length !== 1) return { solved: false, inScope: false, reason: 'the worded problem did not read as one piece of maths' };
  const intent = reading.kind === 'equation' ? 'solve' : 'evaluate';
  const ctx: ProblemContext = { text, normalised: reading.maths, lower: reading.maths.toLowerCase(), intent, statements };
  let result: SolverResult;
  try {
    result = route(ctx);
  } catch (error) {
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

/**
 * Maths with a rounding instruction no solver read ("Evaluate 22/7 to 2 d.p.", "Solve 3x = 10 to 2
 * decimal places"): solved without the instruction, by the algebra only (a word problem's template
 * reads its own instruction), then its real numeric answer rounded as asked, the exact answer kept
 * for checking. Other answers (expressions, inequalities) are not rounded: refused.
 */
function roundedAsAsked(ctx: ProblemContext, target: string | undefined): SolverResult {
  const rounding = roundingAsked(ctx.normalised);
  if (rounding === undefined) return undefined;
  const normalised = withoutRounding(ctx.normalised);
  const statements = mathStatements(normalised).filter((s) => s.kind === 'relation' || !(isConstantNode(s.node) || isSymbolNode(s.node)));
  if (statements.length === 0 || (target !== undefined && !statements.flatMap(unknownsOf).includes(target))) return undefined;
  const exact = routeAlgebra({ ...ctx, normalised, lower: normalised.toLowerCase(), statements });
  if (exact?.solved !== true) return exact;
  const { answer } = exact;
  let finalAnswer: string;
  let value: number;
  if (answer.kind === 'number') {
    value = answer.value;
    finalAnswer = `≈ ${roundedText(value, rounding)}`;
  } else if (answer.kind === 'roots' && answer.roots.every((r) => r.im === 0)) {
    value = answer.roots[0]!.re;
    finalAnswer = answer.roots.map((r) => `${answer.variable} ≈ ${roundedText(r.re, rounding)}`).join(' or ');
  } else {
    return { solved: false, inScope: true, category: exact.category, reason: 'a rounding instruction for an answer that is not a number' };
  }
  const steps = answer.kind === 'number' ? [roundingStep(value, rounding)] : answer.roots.map((r) => roundingStep(r.re, rounding));
  // The problem as read names the instruction too ("solving 22/7, rounded to 2 decimal places").
  const problem = `${statements.map((st) => st.text).join(', ')}, rounded to ${rounding.places} ${rounding.places === 1 ? rounding.kind.replace(/s$/, '') : rounding.kind}`;
  return { ...exact, problem, steps: [...exact.steps, ...steps], finalAnswer };
}

function unknownsOf(statement: MathStatement): string[] {
  return statement.kind === 'relation' ? [...freeVariables(statement.lhs), ...freeVariables(statement.rhs)] : freeVariables(statement.node);
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
  for (const wordProblem of [solveConversion, solveStatistics, solveProbability, solveCoordinateLine, solveRightTriangle, solveInterest, solvePercentOrRatio, solveGeometry, solveSpeedDistanceTime, solveUnitConversion]) {
    const result = wordProblem(ctx);
    if (result !== undefined) return result;
  }
  // A word problem of a kind a template reads, that no template read: not handed to the algebra, which
  // would answer some fragment of it ("legs 5 cm and 12 m" is not the expression "12 m").
  if (/%|percent|\bratio\b|\binterest\b|\bspeed\b|\barea\b|\bvolume\b|\bperimeter\b|\btriangle\b|\bhypotenuse\b|\bprobability\b|\bchance\b|\b(?:mean|median|mode|average)\b|\bgradient\b|\bslope\b|\bmid-?point\b|\bdistance\b|\bdice?\b|\bcoin\b/.test(ctx.lower)) {
    return { solved: false, inScope: false, reason: 'a word problem the engine has no template for' };
  }
  return routeAlgebra(ctx);
}

/** Equations, systems, inequalities and expressions, read from the statements. */
function routeAlgebra(ctx: ProblemContext): SolverResult {
  const relations = solveRelations(ctx);
  if (relations !== undefined) return relations;
  const expressions = ctx.statements.filter((s) => s.kind === 'expression');
  if (expressions.length !== 1 || ctx.statements.length !== 1) return undefined;
  const [statement] = expressions;
  const intent = ctx.intent ?? 'evaluate';
  const expression = solveExpression(statement!.node, intent);
  if (expression !== undefined) return expression;
  return evaluateLogarithm(statement!.node, intent) ?? (intent === 'simplify' ? solveSurd(statement!.node, intent) : undefined) ?? solveArithmetic(statement!.node, intent);
}
