import { mj } from '../core/mathjs.js';
import type { EngineSolution, SolverResult } from '../types.js';
import type { ProblemContext } from './context.js';
import { m } from './context.js';
import { approx, usesEveryNumber } from './word-support.js';

const NAMES: Record<string, string> = {
  km: 'km', kilometres: 'km', kilometers: 'km', m: 'm', metres: 'm', meters: 'm', cm: 'cm', centimetres: 'cm', centimeters: 'cm', mm: 'mm', millimetres: 'mm', millimeters: 'mm',
  miles: 'mi', mile: 'mi', feet: 'ft', ft: 'ft', inches: 'inch', in: 'inch', yards: 'yd',
  hours: 'h', hour: 'h', minutes: 'minute', min: 'minute', seconds: 's', s: 's', days: 'day',
  kg: 'kg', kilograms: 'kg', g: 'g', grams: 'g', pounds: 'lb', lb: 'lb', tonnes: 'tonne',
  litres: 'L', liters: 'L', l: 'L', ml: 'mL', millilitres: 'mL', milliliters: 'mL',
  'km/h': 'km/h', 'm/s': 'm/s', mph: 'mi/h',
};
// Longest names first, so "km/h" is not read as "km" and "m/s" not as "m".
const UNIT = `(${Object.keys(NAMES)
  .sort((a, b) => b.length - a.length)
  .map((k) => k.replace('/', '\\/'))
  .join('|')})(?![\\w/])`;

/** "Convert 5 km to m", "How many minutes are in 3.5 hours?", "Express 72 km/h in m/s": mathjs units. */
export function solveUnitConversion(ctx: ProblemContext): SolverResult {
  const t = ctx.lower;
  const convert = new RegExp(`(?:convert|express|change|write)\\s+(\\d+(?:\\.\\d+)?)\\s*${UNIT}\\s+(?:to|into|in)\\s+${UNIT}`).exec(t);
  const howMany = new RegExp(`how many\\s+${UNIT}\\s+(?:are |is )?(?:there )?in\\s+(\\d+(?:\\.\\d+)?)\\s*${UNIT}`).exec(t);
  const parts = convert !== null ? { value: convert[1]!, from: convert[2]!, to: convert[3]! } : howMany !== null ? { value: howMany[2]!, from: howMany[3]!, to: howMany[1]! } : undefined;
  if (parts === undefined || !usesEveryNumber(t, [Number(parts.value)])) return undefined;
  const from = NAMES[parts.from]!;
  const to = NAMES[parts.to]!;
  let value: number;
  try {
    value = mj.unit(Number(parts.value), from).toNumber(to);
  } catch {
    return undefined; // units of different dimensions
  }
  const factor = mj.unit(1, from).toNumber(to);
  const solved: EngineSolution = {
    solved: true,
    category: 'unit_conversion',
    intent: 'convert',
    problem: `${parts.value} ${parts.from} in ${parts.to}`,
    steps: [
      { title: 'Find the conversion factor', detail: m(`1\\,\\text{${from}} = ${approx(factor)}\\,\\text{${to}}`) },
      { title: 'Multiply', detail: m(`${parts.value} \\times ${approx(factor)} = ${approx(value)}`) },
    ],
    finalAnswer: `${approx(value)} ${parts.to}`,
    answer: { kind: 'number', value, unit: to },
    verification: 'converted with mathjs units',
  };
  return solved;
}
