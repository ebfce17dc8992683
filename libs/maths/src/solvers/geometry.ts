import { formatDecimal, Rational } from '../core/rational.js';
import type { EngineSolution, SolverResult } from '../types.js';
import type { ProblemContext } from './context.js';
import { m } from './context.js';
import { exact, usesEveryNumber } from './word-support.js';

const N = '(\\d+(?:\\.\\d+)?)';
const UNIT = '\\s*(mm|cm|m|km|in|inches|ft|feet)?\\b';

interface Shape {
  readonly name: RegExp;
  /** The measures the formula needs, by the words that name them. */
  readonly measures: readonly { readonly key: string; readonly words: string }[];
  readonly quantity: 'area' | 'perimeter' | 'volume';
  readonly asks: RegExp;
  /** Formula text, and value = coefficient × π^piPower. */
  readonly formula: string;
  readonly compute: (v: Readonly<Record<string, Rational>>) => Rational;
  readonly pi: boolean;
  /** Measures read some other way than word by word ("7 cm by 6 cm by 17 cm", "parallel sides 3 cm and 5 cm"). */
  readonly read?: (t: string) => readonly { readonly key: string; readonly value: string; readonly unit: string | undefined }[] | undefined;
}

/** "7 cm by 6 cm by 17 cm", "7 × 6 × 17 cm": dimensions in the order length, width, height. */
const byDimensions = (keys: readonly string[]) => (t: string) => {
  const match = new RegExp(`${N}${UNIT}(?:\\s*(?:by|x|\\*)\\s*${N}${UNIT}){${keys.length - 1}}(?!\\s*(?:by|x|\\*))`).exec(t);
  if (match === null) return undefined;
  const values = [...match[0].matchAll(new RegExp(`${N}${UNIT}`, 'g'))];
  return values.length === keys.length ? keys.map((key, i) => ({ key, value: values[i]![1]!, unit: values[i]![2] })) : undefined;
};

const R = (v: Readonly<Record<string, Rational>>): Rational => v['radius'] ?? v['diameter']!.div(Rational.of(2));

const SHAPES: readonly Shape[] = [
  { name: /\bcircle\b/, measures: [{ key: 'radius', words: 'radius|diameter' }], quantity: 'area', asks: /\barea\b/, formula: 'A = \\pi r^2', compute: (v) => R(v).pow(2), pi: true },
  { name: /\bcircle\b/, measures: [{ key: 'radius', words: 'radius|diameter' }], quantity: 'perimeter', asks: /circumference|perimeter/, formula: 'C = 2 \\pi r', compute: (v) => R(v).mul(Rational.of(2)), pi: true },
  { name: /\brectangle\b|\brectangular (?:field|garden|room|plot)/, measures: [{ key: 'length', words: 'length|long' }, { key: 'width', words: 'width|wide|breadth' }], quantity: 'area', asks: /\barea\b/, formula: 'A = l \\times w', compute: (v) => v['length']!.mul(v['width']!), pi: false },
  { name: /\brectangle\b|\brectangular (?:field|garden|room|plot)/, measures: [{ key: 'length', words: 'length|long' }, { key: 'width', words: 'width|wide|breadth' }], quantity: 'perimeter', asks: /perimeter/, formula: 'P = 2(l + w)', compute: (v) => v['length']!.add(v['width']!).mul(Rational.of(2)), pi: false },
  { name: /\bsquare\b/, measures: [{ key: 'side', words: 'side|sides|side length' }], quantity: 'area', asks: /\barea\b/, formula: 'A = s^2', compute: (v) => v['side']!.pow(2), pi: false },
  { name: /\bsquare\b/, measures: [{ key: 'side', words: 'side|sides|side length' }], quantity: 'perimeter', asks: /perimeter/, formula: 'P = 4s', compute: (v) => v['side']!.mul(Rational.of(4)), pi: false },
  { name: /\btriangle\b/, measures: [{ key: 'base', words: 'base' }, { key: 'height', words: 'height' }], quantity: 'area', asks: /\barea\b/, formula: 'A = \\tfrac{1}{2} b h', compute: (v) => v['base']!.mul(v['height']!).div(Rational.of(2)), pi: false },
  { name: /\bcube\b/, measures: [{ key: 'side', words: 'side|edge|sides|edges' }], quantity: 'volume', asks: /volume/, formula: 'V = s^3', compute: (v) => v['side']!.pow(3), pi: false },
  { name: /\btrapezium\b|\btrapezoid\b/, measures: [{ key: 'a', words: '' }, { key: 'b', words: '' }, { key: 'height', words: 'height|high|tall' }], quantity: 'area', asks: /\barea\b/, formula: 'A = \\tfrac{1}{2}(a + b) h', compute: (v) => v['a']!.add(v['b']!).mul(v['height']!).div(Rational.of(2)), pi: false,
    read: (t) => {
      const sides = new RegExp(`parallel sides\\s+(?:of\\s+|are\\s+)?${N}${UNIT}\\s+and\\s+${N}${UNIT}`).exec(t);
      const height = new RegExp(`(?:height|high|tall)\\s+(?:of\\s+|is\\s+)?${N}${UNIT}|${N}${UNIT}\\s+(?:high|tall)`).exec(t);
      if (sides === null || height === null) return undefined;
      return [{ key: 'a', value: sides[1]!, unit: sides[2] }, { key: 'b', value: sides[3]!, unit: sides[4] }, { key: 'height', value: height[1] ?? height[3]!, unit: height[2] ?? height[4] }];
    } },
  { name: /\bcuboid\b|\bbox\b|rectangular prism/, read: byDimensions(['length', 'width', 'height']), measures: [{ key: 'length', words: 'length|long' }, { key: 'width', words: 'width|wide|breadth' }, { key: 'height', words: 'height|high|tall' }], quantity: 'volume', asks: /volume/, formula: 'V = l w h', compute: (v) => v['length']!.mul(v['width']!).mul(v['height']!), pi: false },
  { name: /\bcylinder\b/, measures: [{ key: 'radius', words: 'radius|diameter' }, { key: 'height', words: 'height|high|tall' }], quantity: 'volume', asks: /volume/, formula: 'V = \\pi r^2 h', compute: (v) => R(v).pow(2).mul(v['height']!), pi: true },
  { name: /\bsphere\b|\bball\b/, measures: [{ key: 'radius', words: 'radius|diameter' }], quantity: 'volume', asks: /volume/, formula: 'V = \\tfrac{4}{3} \\pi r^3', compute: (v) => R(v).pow(3).mul(Rational.of(4, 3)), pi: true },
  { name: /\bcone\b/, measures: [{ key: 'radius', words: 'radius|diameter' }, { key: 'height', words: 'height|high|tall' }], quantity: 'volume', asks: /volume/, formula: 'V = \\tfrac{1}{3} \\pi r^2 h', compute: (v) => R(v).pow(2).mul(v['height']!).div(Rational.of(3)), pi: true },
];

const SUPERSCRIPT: Record<'area' | 'perimeter' | 'volume', string> = { area: '²', perimeter: '', volume: '³' };

/**
 * Area, perimeter and volume of standard shapes: the shape and the quantity asked for pick the
 * formula; each measure is read next to its name ("radius 5 cm", "a width of 3 m", "8 cm long");
 * answers keep π exact and give a decimal, with the unit squared or cubed.
 */
export function solveGeometry(ctx: ProblemContext): SolverResult {
  const t = ctx.lower;
  const candidates = SHAPES.filter((s) => s.name.test(t) && s.asks.test(t));
  if (candidates.length !== 1) return undefined;
  const shape = candidates[0]!;
  const values: Record<string, Rational> = {};
  const used: number[] = [];
  let unit: string | undefined;
  const read = shape.read?.(t);
  for (const { key, value, unit: u } of read ?? []) {
    values[key] = exact(value);
    used.push(Number(value));
    const normalised = normaliseUnit(u);
    if (normalised !== undefined && unit !== undefined && unit !== normalised) return undefined;
    unit = normalised ?? unit;
  }
  for (const measure of read === undefined ? shape.measures : []) {
    if (measure.words === '') return undefined; // a measure only its own reader finds
    const before = new RegExp(`\\b(${measure.words})\\b(?:\\s+(?:of|is|=|:))?(?:\\s+(?:of|is|=|:))?\\s*${N}${UNIT}`).exec(t);
    const after = new RegExp(`${N}${UNIT}\\s+(${measure.words})\\b`).exec(t);
    const found = before !== null ? { word: before[1]!, value: before[2]!, unit: before[3] } : after !== null ? { word: after[3]!, value: after[1]!, unit: after[2] } : undefined;
    if (found === undefined) return undefined;
    const key = found.word === 'diameter' ? 'diameter' : measure.key;
    if (values[key] !== undefined) return undefined;
    values[key] = exact(found.value);
    used.push(Number(found.value));
    const u = normaliseUnit(found.unit);
    if (u !== undefined) {
      if (unit !== undefined && unit !== u) return undefined; // mixed units: not claimed
      unit = u;
    }
  }
  if (!usesEveryNumber(t, used)) return undefined;
  const coefficient = shape.compute(values);
  const value = coefficient.toNumber() * (shape.pi ? Math.PI : 1);
  const unitText = unit === undefined ? '' : ` ${unit}${SUPERSCRIPT[shape.quantity]}`;
  const exactText = shape.pi ? `${coefficient.equals(Rational.ONE) ? '' : coefficient.isInteger ? coefficient.toString() : `(${coefficient.toString()})`}π${unitText} ≈ ${formatDecimal(value, 6)}${unitText}` : `${formatNumber(coefficient)}${unitText}`;
  const steps: EngineSolution['steps'][number][] = [{ title: 'Write the formula', detail: m(shape.formula) }];
  if (values['diameter'] !== undefined) steps.push({ title: 'Halve the diameter to get the radius', detail: m(`r = ${values['diameter'].toTex()} \\div 2 = ${R(values).toTex()}`) });
  steps.push({
    title: 'Substitute the measurements',
    detail: `${Object.entries(values).map(([k, v]) => `${k} ${m(v.toTex())}`).join(', ')} gives ${m(`${shape.pi ? `${coefficient.toTex()}\\pi` : coefficient.toTex()}`)}${shape.pi ? ` ≈ ${formatDecimal(value, 6)}` : ''}${unitText}.`,
  });
  return {
    solved: true,
    category: 'geometry',
    intent: 'evaluate',
    problem: `${shape.quantity} of a ${shape.name.source.replace(/\\b|\(\?:.*\)|\|.*/g, '')}`,
    steps,
    finalAnswer: exactText,
    answer: unit === undefined ? { kind: 'number', value } : { kind: 'number', value, unit: `${unit}${shape.quantity === 'area' ? '^2' : shape.quantity === 'volume' ? '^3' : ''}` },
    verification: 'the standard formula evaluated exactly (π kept symbolic)',
  };
}

function normaliseUnit(unit: string | undefined): string | undefined {
  if (unit === undefined) return undefined;
  if (unit === 'inches') return 'in';
  if (unit === 'feet') return 'ft';
  return unit;
}

function formatNumber(value: Rational): string {
  return value.isInteger ? value.toString() : (value.toTerminatingDecimal() ?? `${value.toString()} ≈ ${formatDecimal(value.toNumber())}`);
}
