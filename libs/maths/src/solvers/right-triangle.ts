import { Rational } from '../core/rational.js';
import { SurdSum } from '../core/surd-sum.js';
import type { SolverResult, Step } from '../types.js';
import type { ProblemContext } from './context.js';
import { m } from './context.js';
import { roundAsAsked, type RoundableValue, type Rounding, roundingAsked, approximateText, roundingStep, withoutRounding } from './rounding.js';
import { exact, usesEveryNumber } from './word-support.js';
import { sameNumber } from '../core/same-number.js';

const N = '(\\d+(?:\\.\\d+)?)';
const UNIT = '\\s*(mm|cm|m|km|in|ft)?\\b';
type Role = 'hypotenuse' | 'opposite' | 'adjacent';

/**
 * Right-angled triangles: Pythagoras (two legs give the hypotenuse; the hypotenuse and a leg give the
 * other leg, exact as a surd) and right-triangle trigonometry (one side and one acute angle give
 * another side by SOH CAH TOA). A rounding instruction is honoured. Checks: the three sides satisfy
 * a² + b² = c², and for trigonometry the angle recomputed from the two legs is the angle given.
 */
export function solveRightTriangle(ctx: ProblemContext): SolverResult {
  const t = ctx.lower;
  if (!/\bright(?:-angled| angled)? triangle\b/.test(t)) return undefined;
  // Angles other than the one given, areas and perimeters are not read here (and not answered as a side).
  if (/\b(?:other|third|second|remaining) angle\b|\bperimeter\b|\barea\b|\bfind (?:the )?(?:size of )?(?:the )?angle\b/.test(t)) return undefined;
  const rounding = roundingAsked(t);
  const plain = withoutRounding(t);
  const angle = new RegExp(`(?:angle\\s+(?:of\\s+|is\\s+)?)?${N}\\s*(?:°|degrees?)`).exec(plain);
  return angle === null ? pythagoras(plain, rounding) : trigonometry(plain, exact(angle[1]!).toNumber(), Number(angle[1]), rounding);
}

function pythagoras(t: string, rounding: ReturnType<typeof roundingAsked>): SolverResult {
  const legs = new RegExp(`(?:legs|shorter sides[^0-9]*?)\\s+(?:of\\s+|are\\s+)?${N}${UNIT}\\s+and\\s+${N}${UNIT}`).exec(t);
  const hyp = new RegExp(`hypotenuse\\s+(?:of\\s+|is\\s+)?${N}${UNIT}`).exec(t);
  const leg = new RegExp(`(?:one|a)\\s+(?:leg|shorter side|side)\\s+(?:of\\s+|is\\s+)?${N}${UNIT}`).exec(t);
  let a: Rational;
  let b: Rational | undefined;
  let c: Rational | undefined;
  let unit: string | undefined;
  if (legs !== null && hyp === null && /\bhypotenuse\b|longest side/.test(t)) {
    [a, b, unit] = [exact(legs[1]!), exact(legs[3]!), legs[2] ?? legs[4]];
    if (legs[2] !== undefined && legs[4] !== undefined && legs[2] !== legs[4]) return mixedUnits;
  } else if (hyp !== null && leg !== null && /\bother (?:leg|side)\b|\bthird side\b|\bmissing side\b/.test(t)) {
    [a, c, unit] = [exact(leg[1]!), exact(hyp[1]!), hyp[2] ?? leg[2]];
    if (hyp[2] !== undefined && leg[2] !== undefined && hyp[2] !== leg[2]) return mixedUnits;
  } else return undefined;
  const given = [a, b ?? c!].map((r) => r.toNumber());
  // "the two shorter sides" counts the sides the reading found, not a number to work with.
  if (!usesEveryNumber(t.replace(/\btwo (?:shorter )?(?:sides|legs)\b/g, ''), given)) return undefined;
  const steps: Step[] = [];
  let squared: Rational;
  if (b !== undefined) {
    squared = a.pow(2).add(b.pow(2));
    steps.push({ title: 'Pythagoras: the hypotenuse squared is the sum of the squares of the legs', detail: m(`c^2 = ${a.toTex()}^2 + ${b.toTex()}^2 = ${squared.toTex()}`) });
  } else {
    squared = c!.pow(2).sub(a.pow(2));
    if (squared.sign <= 0) return { solved: false, inScope: true, category: 'right_triangle', reason: 'the hypotenuse must be longer than the leg' };
    steps.push({ title: 'Pythagoras: a leg squared is the hypotenuse squared minus the other leg squared', detail: m(`b^2 = ${c!.toTex()}^2 - ${a.toTex()}^2 = ${squared.toTex()}`) });
  }
  const inUnit = askedUnit(t, unit);
  if (inUnit !== undefined && 'refused' in inUnit) return inUnit.refused;
  const root = SurdSum.sqrt(squared);
  const side = root.scale(inUnit?.factor ?? Rational.ONE);
  const value = side.toNumber();
  steps.push({ title: 'Take the square root', detail: m(`\\sqrt{${squared.toTex()}} = ${root.toTex()}`) });
  if (inUnit !== undefined) steps.push({ title: `Convert to ${inUnit.unit}`, detail: m(`${root.toTex()}\\,\\text{${unit ?? ''}} = ${side.toTex()}\\,\\text{${inUnit.unit}}`) });
  unit = inUnit?.unit ?? unit;
  const toAsked = (inUnit?.factor ?? Rational.ONE).toNumber();
  const [leg1, leg2, hypotenuse] = b !== undefined ? [a.toNumber() * toAsked, b.toNumber() * toAsked, value] : [a.toNumber() * toAsked, value, c!.toNumber() * toAsked];
  if (!sameNumber(leg1 ** 2 + leg2 ** 2, hypotenuse ** 2)) throw new Error('the sides do not satisfy Pythagoras');
  const exactAnswer = side.asRational() !== undefined;
  const answered = roundedAsAsked(side, value, rounding);
  if ('refused' in answered) return answered.refused;
  if (answered.step !== undefined) steps.push(answered.step);
  const unitText = unit === undefined ? '' : ` ${unit}`;
  const finalAnswer = answered.text !== undefined ? `${answered.text}${unitText}` : exactAnswer ? `${side.toString()}${unitText}` : `${side.toString()}${unitText} ≈ ${approximateText(value)}${unitText}`;
  return {
    solved: true,
    category: 'right_triangle',
    intent: 'evaluate',
    problem: b !== undefined ? `the hypotenuse of a right triangle with legs ${a.toString()} and ${b.toString()}` : `the other leg of a right triangle with hypotenuse ${c!.toString()} and leg ${a.toString()}`,
    steps,
    finalAnswer,
    answer: { kind: 'number', value: answered.value, ...(unit === undefined ? {} : { unit }) },
    verification: 'the three sides satisfy a² + b² = c²',
  };
}

/**
 * The answer rounded as asked (its text, its rounding step and the structured value, the rounded figure
 * stated), the unrounded value when no rounding was asked, or the refusal when it cannot be rounded reliably.
 */
function roundedAsAsked(exactOrDouble: RoundableValue, value: number, rounding: Rounding | undefined): { readonly text?: string; readonly step?: Step; readonly value: number } | { readonly refused: SolverResult } {
  if (rounding === undefined) return { value };
  const result = roundAsAsked(exactOrDouble, rounding);
  if ('refused' in result) return { refused: { solved: false, inScope: true, category: 'right_triangle', reason: result.refused } };
  return { text: result.text, step: roundingStep(value, result.text, rounding), value: Number(result.text) };
}

const HALF = Rational.of(1n, 2n);
/** sin and cos of the acute angles whose ratios are exact surds, by role (the hypotenuse's ratio is 1). */
const EXACT_RATIOS: ReadonlyMap<number, Readonly<Record<Role, SurdSum>>> = new Map([
  [30, { hypotenuse: SurdSum.rational(Rational.ONE), opposite: SurdSum.rational(HALF), adjacent: SurdSum.sqrt(Rational.of(3n)).scale(HALF) }],
  [45, { hypotenuse: SurdSum.rational(Rational.ONE), opposite: SurdSum.sqrt(Rational.of(2n)).scale(HALF), adjacent: SurdSum.sqrt(Rational.of(2n)).scale(HALF) }],
  [60, { hypotenuse: SurdSum.rational(Rational.ONE), opposite: SurdSum.sqrt(Rational.of(3n)).scale(HALF), adjacent: SurdSum.rational(HALF) }],
]);

/** Metres in one of each unit a side is given in, exactly. */
const METRES_PER: Readonly<Record<string, Rational>> = { mm: Rational.of(1n, 1000n), cm: Rational.of(1n, 100n), m: Rational.ONE, km: Rational.of(1000n), in: Rational.of(254n, 10000n), ft: Rational.of(3048n, 10000n) };
const UNIT_WORDS: Readonly<Record<string, string>> = { millimetres: 'mm', millimeters: 'mm', centimetres: 'cm', centimeters: 'cm', metres: 'm', meters: 'm', kilometres: 'km', kilometers: 'km', inches: 'in', feet: 'ft' };

/**
 * The unit the side is asked in ("find the hypotenuse in cm", sides in metres), with the exact factor from
 * the sides' unit; refused when the sides carry no unit to convert from. Undefined when none is asked, or
 * the sides' own: the side in another unit than asked was the answer to another question.
 */
function askedUnit(text: string, given: string | undefined): { readonly unit: string; readonly factor: Rational } | { readonly refused: SolverResult } | undefined {
  const word = /\bin\s+(mm|cm|m|km|ft|millimetres|millimeters|centimetres|centimeters|metres|meters|kilometres|kilometers|inches|feet)\b/.exec(text)?.[1];
  const asked = word === undefined ? undefined : (UNIT_WORDS[word] ?? word);
  if (asked === undefined || asked === given) return undefined;
  if (given === undefined) return { refused: { solved: false, inScope: true, category: 'right_triangle', reason: `the side is asked in ${asked}, but the sides are given with no unit to convert from` } };
  return { unit: asked, factor: METRES_PER[given]!.div(METRES_PER[asked]!) };
}

const mixedUnits: SolverResult = { solved: false, inScope: true, category: 'right_triangle', reason: 'the sides are given in different units: convert them to one unit first' };

const RATIO: Readonly<Record<Role, (angle: number) => number>> = { hypotenuse: () => 1, opposite: Math.sin, adjacent: Math.cos };
const ROLE_WORDS: readonly [Role, string][] = [
  ['hypotenuse', 'hypotenuse'],
  ['opposite', '(?:side\\s+)?opposite(?:\\s+side)?'],
  ['adjacent', '(?:side\\s+)?adjacent(?:\\s+side)?'],
];

function trigonometry(t: string, degrees: number, angleNumber: number, rounding: ReturnType<typeof roundingAsked>): SolverResult {
  if (!(degrees > 0 && degrees < 90)) return undefined;
  const askedAt = /\b(?:find|calculate|work out|what is|how long is)\b/.exec(t);
  if (askedAt === null) return undefined;
  const [given, asked] = [t.slice(0, askedAt.index), t.slice(askedAt.index)];
  const askedRoles = ROLE_WORDS.filter(([, words]) => new RegExp(`\\b${words}\\b`).test(asked)).map(([role]) => role);
  // "the hypotenuse is 12 cm", "hypotenuse 12 cm", "the side adjacent to an angle of 40° is 7 cm" (never the angle itself).
  const side = `${N}(?![\\d.]|\\s*(?:°|degrees?))${UNIT}`;
  const known = ROLE_WORDS.map(([role, words]) => ({ role, match: new RegExp(`\\b${words}\\b[^.]*?\\bis\\s+${side}|\\b${words}\\s+(?:of\\s+)?${side}`).exec(given) }))
    .filter((k) => k.match !== null)
    .map((k) => ({ role: k.role, written: (k.match![1] ?? k.match![3])!, unit: k.match![2] ?? k.match![4] }));
  if (askedRoles.length !== 1 || known.length !== 1 || known[0]!.role === askedRoles[0]) return undefined;
  const [{ role: knownRole, written: knownWritten, unit }] = known as [{ role: Role; written: string; unit: string | undefined }];
  const inUnit = askedUnit(asked, unit);
  if (inUnit !== undefined && 'refused' in inUnit) return inUnit.refused;
  // The known side in the unit the answer is asked in (the text's number is still the one accounted for).
  const exactKnown = exact(knownWritten).mul(inUnit?.factor ?? Rational.ONE);
  const knownValue = exactKnown.toNumber();
  const answerUnit = inUnit?.unit ?? unit;
  const askedRole = askedRoles[0]!;
  if (!usesEveryNumber(t, [exact(knownWritten).toNumber(), angleNumber])) return undefined;
  const rad = (degrees * Math.PI) / 180;
  const hypotenuse = knownValue / RATIO[knownRole](rad);
  const value = hypotenuse * RATIO[askedRole](rad);
  const ratioName = (a: Role, b: Role): string => `${a === 'hypotenuse' ? 'hyp' : a === 'opposite' ? 'opp' : 'adj'}/${b === 'hypotenuse' ? 'hyp' : b === 'opposite' ? 'opp' : 'adj'}`;
  const fn = (top: Role, bottom: Role): { name: string; value: number } => {
    const pair = `${top}/${bottom}`;
    const table: Record<string, { name: string; value: number }> = {
      'opposite/hypotenuse': { name: 'sin', value: Math.sin(rad) },
      'adjacent/hypotenuse': { name: 'cos', value: Math.cos(rad) },
      'opposite/adjacent': { name: 'tan', value: Math.tan(rad) },
    };
    return table[pair] ?? { name: `1/${table[`${bottom}/${top}`]!.name}`, value: 1 / table[`${bottom}/${top}`]!.value };
  };
  const [top, bottom] = askedRole === 'hypotenuse' || (askedRole === 'adjacent' && knownRole === 'opposite') ? [knownRole, askedRole] : [askedRole, knownRole];
  const relation = fn(top, bottom);
  const fnTex = relation.name.startsWith('1/') ? `\\frac{1}{\\${relation.name.slice(2)}}` : `\\${relation.name}`;
  const steps: Step[] = [
    { title: `Choose the ratio linking the ${askedRole === 'hypotenuse' ? 'hypotenuse' : `${askedRole} side`} and the ${knownRole === 'hypotenuse' ? 'hypotenuse' : `${knownRole} side`}`, detail: m(`${fnTex}(${degrees}^\\circ) = \\frac{\\text{${top}}}{\\text{${bottom}}}`) + ` (${ratioName(top, bottom)})` },
    {
      title: `Solve for the ${askedRole === 'hypotenuse' ? 'hypotenuse' : `${askedRole} side`}`,
      detail: top === askedRole ? m(`${askedRole} = ${knownValue} \\times ${fnTex}(${degrees}^\\circ) \\approx ${value.toPrecision(8)}`) : m(`${askedRole} = \\frac{${knownValue}}{${fnTex}(${degrees}^\\circ)} \\approx ${value.toPrecision(8)}`),
    },
  ];
  // The check: the legs of the triangle found give back the angle, and its sides satisfy Pythagoras.
  const opposite = hypotenuse * Math.sin(rad);
  const adjacent = hypotenuse * Math.cos(rad);
  const known2 = knownRole === askedRole ? knownValue : [opposite, adjacent, hypotenuse][['opposite', 'adjacent', 'hypotenuse'].indexOf(knownRole)]!;
  if (!sameNumber((Math.atan2(opposite, adjacent) * 180) / Math.PI, degrees) || !sameNumber(known2, knownValue) || !sameNumber(opposite ** 2 + adjacent ** 2, hypotenuse ** 2)) {
    throw new Error('the triangle found does not have the angle and side given');
  }
  // At 30°, 45° and 60° the ratios are exact surds, so the side is too and rounds exactly (11·sin 30° = 5.5 is 6 to the nearest whole number).
  const exactRatios = EXACT_RATIOS.get(degrees);
  const exactSide = exactRatios === undefined ? undefined : exactRatios[askedRole].scale(exactKnown).div(exactRatios[knownRole]);
  if (exactSide !== undefined && !sameNumber(exactSide.toNumber(), value)) throw new Error('the exact side disagrees with its trigonometry');
  const answered = roundedAsAsked(exactSide ?? value, value, rounding);
  if ('refused' in answered) return answered.refused;
  if (answered.step !== undefined) steps.push(answered.step);
  const unitText = answerUnit === undefined ? '' : ` ${answerUnit}`;
  return {
    solved: true,
    category: 'right_triangle',
    intent: 'evaluate',
    problem: `the ${askedRole} side of a right triangle with ${knownRole} ${knownValue}${unitText} and an angle of ${degrees}°`,
    steps,
    finalAnswer: `${answered.text ?? `≈ ${approximateText(value)}`}${unitText}`,
    answer: { kind: 'number', value: answered.value, ...(answerUnit === undefined ? {} : { unit: answerUnit }) },
    verification: 'the triangle found has the angle given (atan of its legs) and satisfies a² + b² = c²',
  };
}
