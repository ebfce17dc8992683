import { type BenchProblem, type Label, num, real } from './labels.js';

/**
 * The labelled problem set: each family is a list of cases, each case asked in several phrasings.
 * Labels come from the case's own parameters (roots chosen first, equations built from them) or
 * from hand-written results; see labels.ts.
 */
function family<T>(category: string, cases: readonly T[], phrasings: readonly ((c: T) => string)[], label: (c: T) => Label | undefined): BenchProblem[] {
  return cases.flatMap((c, i) => {
    // Rotate through the phrasings so every case is asked at least twice, in different words.
    const picked = [phrasings[i % phrasings.length]!, phrasings[(i + 1) % phrasings.length]!];
    return picked.map((p) => ({ category, text: p(c), label: label(c) }));
  });
}

const signed = (n: number): string => (n < 0 ? `- ${-n}` : `+ ${n}`);
const coef = (n: number, v: string): string => (n === 1 ? v : n === -1 ? `-${v}` : `${n}${v}`);

// ---- arithmetic -------------------------------------------------------------------------------
const ARITHMETIC: readonly [string, number][] = [
  ['12 * (3 + 4)', 84], ['2 + 3 * 4', 14], ['10 / 4 - 1', 1.5], ['(2^3 - 4) * -2', -8], ['7 divided by 2', 3.5], ['sqrt(16) + 2', 6],
  ['15 - 4 * 2 + 6 / 3', 9], ['(1/2 + 1/3) * 6', 5], ['3^4 - 2^5', 49], ['100 / (5 * 4)', 5], ['2.5 * 4 + 0.75', 10.75], ['(18 - 6) / (2 + 2)', 3],
];
const arithmetic = family('arithmetic', ARITHMETIC, [([e]) => `What is ${e}?`, ([e]) => `Calculate ${e}`, ([e]) => `Evaluate ${e}.`, ([e]) => `Work out ${e}`], ([, v]) => num(v));

// ---- linear equations: a·v + b = c·v + d with the root chosen first ------------------------------
const LINEAR: readonly [number, number, number, number, string][] = [
  [2, 3, 0, 2, 'x'], [5, -4, 2, 3, 'x'], [3, 7, 1, -2, 'y'], [4, -1, -2, 1.5, 'n'], [7, 2, 3, 0.25, 'x'], [-3, 5, 1, 4, 'x'],
  [6, 0, 2, -3, 'x'], [1, -9, -1, 6, 't'], [9, 4, 4, 2, 'x'], [2, 11, 5, -1, 'a'], [8, -3, 3, 0.6, 'x'], [3, 3, -3, 1, 'k'],
];
const linearText = ([a, b, c, r, v]: (typeof LINEAR)[number]): string => {
  const d = (a - c) * r + b;
  const right = c === 0 ? String(d) : `${coef(c, v)} ${signed(d)}`;
  return `${coef(a, v)} ${signed(b)} = ${right}`;
};
const linear = family('linear_equation', LINEAR, [(c) => `Solve ${linearText(c)}`, (c) => `Find ${c[4]} if ${linearText(c)}.`, (c) => `Solve for ${c[4]}: ${linearText(c)}`, (c) => `${linearText(c)}, what is ${c[4]}?`], ([, , , r]) => real(r));

// ---- quadratic equations ------------------------------------------------------------------------
type Quadratic = { readonly a: number; readonly b: number; readonly c: number };
const fromRoots = (a: number, r1: number, r2: number): Quadratic => ({ a, b: -a * (r1 + r2), c: a * r1 * r2 });
const QUADRATIC: readonly Quadratic[] = [
  fromRoots(1, 2, 3), fromRoots(1, -4, 1), fromRoots(2, 0.5, -3), fromRoots(1, 5, 5), fromRoots(3, -2, 2), fromRoots(1, 0, 7), fromRoots(4, 0.25, -1), fromRoots(1, -6, -1),
  { a: 1, b: -2, c: -1 }, { a: 1, b: 4, c: 1 }, { a: 2, b: 3, c: -1 }, { a: 1, b: 0, c: -5 },
  { a: 1, b: 2, c: 5 }, { a: 1, b: 0, c: 9 }, { a: 2, b: -2, c: 1 }, { a: 1, b: 1, c: 1 },
];
const quadraticText = ({ a, b, c }: Quadratic): string => `${coef(a, 'x^2')}${b === 0 ? '' : ` ${signed(b).replace(/(\d+(\.\d+)?)$/, '$1x').replace(/ 1x$/, ' x')}`}${c === 0 ? '' : ` ${signed(c)}`} = 0`;
const quadraticRoots = ({ a, b, c }: Quadratic): Label => {
  const d = b * b - 4 * a * c;
  if (d >= 0) return real((-b + Math.sqrt(d)) / (2 * a), (-b - Math.sqrt(d)) / (2 * a));
  const re = -b / (2 * a);
  const im = Math.sqrt(-d) / (2 * a);
  return { kind: 'roots', roots: [{ re, im }, { re, im: -im }] };
};
const quadratic = family('quadratic_equation', QUADRATIC, [(q) => `Solve ${quadraticText(q)}`, (q) => `Find the roots of ${quadraticText(q)}.`, (q) => `Solve the quadratic equation ${quadraticText(q)}`, (q) => `For what values of x is ${quadraticText(q).replace(' = 0', '')} = 0?`], quadraticRoots);

// ---- linear systems: solution chosen first --------------------------------------------------------
type System = { readonly rows: readonly (readonly number[])[]; readonly solution: readonly number[] };
const VARS = ['x', 'y', 'z'];
const SYSTEMS: readonly System[] = [
  { rows: [[2, 1], [1, -1]], solution: [2, 1] }, { rows: [[3, 2], [1, 4]], solution: [-1, 3] }, { rows: [[1, 1], [1, -1]], solution: [5, 2] }, { rows: [[4, -3], [2, 5]], solution: [0.5, -2] },
  { rows: [[5, 2], [3, -1]], solution: [1, 1] }, { rows: [[2, -3], [-4, 1]], solution: [3, -2] },
  { rows: [[1, 1, 1], [2, -1, 1], [1, 2, -1]], solution: [1, 2, 3] }, { rows: [[2, 1, -1], [1, -1, 2], [3, 2, 1]], solution: [2, -1, 1] },
  { rows: [[1, 2, 3], [0, 1, 4], [5, 6, 0]], solution: [1, -1, 2] }, { rows: [[3, -1, 2], [1, 1, 1], [2, 3, -1]], solution: [0, 4, -1] },
];
const systemEquations = ({ rows, solution }: System): string[] =>
  rows.map((row) => {
    const rhs = row.reduce((s, a, i) => s + a * solution[i]!, 0);
    const lhs = row.map((a, i) => (a === 0 ? '' : `${a < 0 ? '-' : '+'} ${coef(Math.abs(a), VARS[i]!)}`)).filter((t) => t !== '').join(' ').replace(/^\+ /, '').replace(/^- /, '-');
    return `${lhs} = ${rhs}`;
  });
const systems = family('linear_system', SYSTEMS, [(s) => `Solve the system ${systemEquations(s).join(', ')}`, (s) => `Solve simultaneously: ${systemEquations(s).join(' and ')}`, (s) => `Find ${VARS.slice(0, s.solution.length).join(' and ')} given ${systemEquations(s).join('; ')}`], (s) => ({ kind: 'assignment', values: Object.fromEntries(s.solution.map((v, i) => [VARS[i]!, v])) }));

// ---- linear inequalities ----------------------------------------------------------------------------
const INEQUALITIES: readonly [number, number, '<' | '<=' | '>' | '>=', number][] = [
  [3, -4, '>', 5], [-2, 1, '<=', 7], [5, 2, '<', 17], [-4, -3, '>=', 9], [2, 7, '>', 1], [0.5, 1, '<=', 3], [-1, 6, '<', 2], [7, 0, '>=', 21], [-3, 9, '>', 0], [4, -2, '<', -10],
];
const FLIP = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;
const inequalities = family('linear_inequality', INEQUALITIES, [([a, b, op, c]) => `Solve ${coef(a, 'x')} ${signed(b)} ${op} ${c}`, ([a, b, op, c]) => `Solve the inequality ${coef(a, 'x')} ${signed(b)} ${op} ${c}.`, ([a, b, op, c]) => `For which x is ${coef(a, 'x')} ${signed(b)} ${op} ${c}?`], ([a, b, op, c]) => ({ kind: 'inequality', relation: a < 0 ? FLIP[op] : op, bound: (c - b) / a }));

// ---- polynomials: factor (from chosen roots) and expand ---------------------------------------------
const FACTOR: readonly [string, string][] = [
  ['x^2 + 5x + 6', '(x + 2)*(x + 3)'], ['x^2 - 9', '(x - 3)*(x + 3)'], ['2x^2 - 8', '2*(x - 2)*(x + 2)'], ['x^3 - 6x^2 + 11x - 6', '(x - 1)*(x - 2)*(x - 3)'], ['x^4 - 16', '(x - 2)*(x + 2)*(x^2 + 4)'],
  ['x^2 - 7x + 12', '(x - 3)*(x - 4)'], ['6x^2 + x - 2', '(2x - 1)*(3x + 2)'], ['x^3 - x', 'x*(x - 1)*(x + 1)'], ['3x^2 + 12x + 12', '3*(x + 2)^2'], ['x^2 + 2x - 15', '(x + 5)*(x - 3)'],
];
const factor = family('polynomial', FACTOR, [([p]) => `Factor ${p}`, ([p]) => `Factorise ${p} completely.`, ([p]) => `Factorize the expression ${p}`], ([, f]) => ({ kind: 'expression', expression: f, variable: 'x', form: 'product' }));
const EXPAND: readonly string[] = ['(x + 1)^3', '(2x - 3)(x + 4)', '(x - 5)(x + 5)', '3(x + 2)(x - 1)', '(x + 2)^2 - 4x', '(2x + 1)^2', '(x - 1)(x^2 + x + 1)', 'x(x - 3)(x + 3)'];
const expand = family('polynomial', EXPAND, [(e) => `Expand ${e}`, (e) => `Multiply out ${e}.`, (e) => `Expand and simplify ${e}`], (e) => ({ kind: 'expression', expression: e.replace(/\)\(/g, ')*(').replace(/^x\(/, 'x*('), variable: 'x' }));

// ---- rational expressions ---------------------------------------------------------------------------------
const RATIONAL: readonly [string, string][] = [
  ['(x^2 - 1)/(x - 1)', 'x + 1'], ['(x^2 + 3x + 2)/(x^2 + 4x + 4)', '(x + 1)/(x + 2)'], ['(x^2 - 9)/(x^2 - 6x + 9)', '(x + 3)/(x - 3)'], ['(2x^2 - 8)/(x + 2)', '2(x - 2)'],
  ['(x^3 - x)/(x^2 + x)', 'x - 1'], ['(x^2 - 5x + 6)/(x - 3)', 'x - 2'], ['(3x + 6)/(x^2 + 2x)', '3/x'], ['(x^2 + x - 12)/(x^2 - 9)', '(x + 4)/(x + 3)'],
];
const rational = family('rational_expression', RATIONAL, [([e]) => `Simplify ${e}`, ([e]) => `Simplify the rational expression ${e}.`, ([e]) => `Write ${e} in simplest form`], ([, s]) => ({ kind: 'expression', expression: s.replace(/(\d)\(/g, '$1*('), variable: 'x' }));

// ---- exponents and logarithms ------------------------------------------------------------------------------
const POWERS: readonly [string, string][] = [['x^3 * x^5', 'x^8'], ['(x^2)^3', 'x^6'], ['x^7 / x^3', 'x^4'], ['(2x^2)^3', '8x^6'], ['x^2 * x^-5', 'x^-3'], ['3x^4 * 2x^3', '6x^7']];
const powers = family('exponent_log', POWERS, [([e]) => `Simplify ${e}`, ([e]) => `Use the laws of exponents to simplify ${e}.`], ([, s]) => ({ kind: 'expression', expression: s.replace(/(\d)x/g, '$1*x'), variable: 'x' }));
const EXPONENTIAL: readonly [string, number][] = [['2^(x+1) = 32', 4], ['3^x = 81', 4], ['5^(2x) = 125', 1.5], ['2^(x - 3) = 1/4', 1], ['10^x = 1000', 3], ['4^(x+2) = 64', 1]];
const exponential = family('exponent_log', EXPONENTIAL, [([e]) => `Solve ${e}`, ([e]) => `Find x: ${e}`], ([, r]) => real(r));
const LOGS: readonly [string, number][] = [['log2(8)', 3], ['log_3(81)', 4], ['log(1000)', 3], ['log_5(1/25)', -2], ['log_2(64)', 6], ['log_10(0.01)', -2]];
const logs = family('exponent_log', LOGS, [([e]) => `Evaluate ${e}`, ([e]) => `What is ${e}?`], ([, v]) => num(v));
const LOG_EQUATIONS: readonly [string, number][] = [['log_2(x) = 5', 32], ['log_3(x + 1) = 2', 8], ['log(2x) = 2', 50]];
const logEquations = family('exponent_log', LOG_EQUATIONS, [([e]) => `Solve ${e}`, ([e]) => `Find x if ${e}`], ([, r]) => real(r));

// ---- percentages and ratios ---------------------------------------------------------------------------------
const percent = [
  ...family('percent_ratio', [[15, 80], [20, 50], [12.5, 64], [7, 300], [150, 40]] as const, [([p, b]) => `What is ${p}% of ${b}?`, ([p, b]) => `Find ${p} percent of ${b}.`, ([p, b]) => `Calculate ${p}% of ${b}`], ([p, b]) => num((p / 100) * b)),
  ...family('percent_ratio', [[30, 120], [45, 60], [7, 28], [18, 24]] as const, [([a, b]) => `What percent of ${b} is ${a}?`, ([a, b]) => `${a} is what percent of ${b}?`, ([a, b]) => `Express ${a} as a percentage of ${b}.`], ([a, b]) => num((a / b) * 100)),
  ...family('percent_ratio', [['Increase', 80, 15], ['Decrease', 250, 20], ['Increase', 60, 5], ['Decrease', 1200, 12.5]] as const, [([v, b, p]) => `${v} ${b} by ${p}%.`, ([v, b, p]) => `${v} ${b} by ${p} percent`], ([v, b, p]) => num(b * (v === 'Increase' ? 1 + p / 100 : 1 - p / 100))),
  ...family('percent_ratio', [[40, 50], [80, 60], [25, 30]] as const, [([a, b]) => `A price rises from ${a} to ${b}. What is the percentage increase?`.replace('rises', a < b ? 'rises' : 'falls').replace('increase?', a < b ? 'increase?' : 'decrease?'), ([a, b]) => `Find the percentage change from ${a} to ${b}.`.replace('change', a < b ? 'increase' : 'decrease')], ([a, b]) => num(((b - a) / a) * 100)),
  ...family('percent_ratio', [[120, [2, 3]], [90, [1, 2, 3]], [500, [3, 7]], [84, [5, 2]]] as const, [([t, r]) => `Divide ${t} in the ratio ${r.join(':')}.`, ([t, r]) => `Share ${t} sweets in the ratio ${r.join(' : ')}`], ([t, r]) => ({ kind: 'ratio', parts: r.map((p) => (t * p) / r.reduce((s, x) => s + x, 0)) })),
  ...family('percent_ratio', [[12, 18], [45, 60], [8, 12, 20]] as const, [(r) => `Simplify the ratio ${r.join(':')}`, (r) => `Simplify the ratio ${r.join(' : ')}.`], (r) => {
    const g = (r as readonly number[]).reduce((a, b) => {
      let [x, y] = [a, b];
      while (y !== 0) [x, y] = [y, x % y];
      return x;
    });
    return { kind: 'ratio', parts: r.map((p) => p / g) };
  }),
];

// ---- speed, distance, time (own unit table) ---------------------------------------------------------------------
const SDT = [
  ...family('speed_distance_time', [[150, 'km', 2.5], [120, 'km', 2], [90, 'miles', 1.5], [45, 'km', 0.75]] as const, [([d, u, h]) => `A car travels ${d} ${u} in ${h} hours. What is its average speed?`, ([d, u, h]) => `A train covers ${d} ${u} in ${h} hours. How fast is it going?`, ([d, u, h]) => `Find the average speed of a cyclist who rides ${d} ${u} in ${h} hours.`], ([d, , h]) => num(d / h)),
  ...family('speed_distance_time', [[60, 'km/h', 3], [45, 'mph', 2], [80, 'km/h', 1.25], [12, 'km/h', 0.5]] as const, [([s, u, h]) => `A bus drives at ${s} ${u} for ${h} hours. How far does it travel?`, ([s, u, h]) => `How far does a car go in ${h} hours at ${s} ${u}?`], ([s, , h]) => num(s * h)),
  ...family('speed_distance_time', [[240, 'km', 80, 'km/h'], [150, 'miles', 60, 'mph'], [100, 'm', 4, 'm/s'], [35, 'km', 70, 'km/h']] as const, [([d, du, s, su]) => `How long does it take to travel ${d} ${du} at ${s} ${su}?`, ([d, du, s, su]) => `A runner covers ${d} ${du} at ${s} ${su}. How long does it take?`], ([d, , s]) => num(d / s)),
  ...family('speed_distance_time', [[150, 2, 30], [100, 1, 15], [36, 0, 45]] as const, [([d, h, m]) => `A car travels ${d} km in ${h} hours ${m} minutes. What is its average speed?`.replace('0 hours ', ''), ([d, h, m]) => `A coach covers ${d} km in ${h} hours and ${m} minutes. Find its average speed.`.replace('0 hours and ', '')], ([d, h, m]) => num(d / (h + m / 60))),
];

// ---- interest (textbook formulas) ---------------------------------------------------------------------------------
const interest = [
  ...family('interest', [[500, 4, 3], [1200, 5, 2], [800, 3.5, 4], [2500, 6, 5]] as const, [([p, r, t]) => `Find the simple interest on $${p} at ${r}% per year for ${t} years.`, ([p, r, t]) => `How much simple interest does $${p} earn at ${r}% per annum over ${t} years?`], ([p, r, t]) => num((p * r * t) / 100)),
  ...family('interest', [[1000, 5, 2], [2000, 3, 3], [1500, 4, 2]] as const, [([p, r, t]) => `$${p} is invested at ${r}% compound interest, compounded annually, for ${t} years. What is the final amount?`, ([p, r, t]) => `Find the amount after ${t} years if $${p} is invested at ${r}% interest compounded annually.`], ([p, r, t]) => num(Math.round(p * (1 + r / 100) ** t * 100) / 100)),
  ...family('interest', [[1000, 6, 2]] as const, [([p, r, t]) => `How much interest is earned on $${p} at ${r}% compounded monthly for ${t} years?`], ([p, r, t]) => num(Math.round((p * (1 + r / 1200) ** (12 * t) - p) * 100) / 100)),
  ...family('interest', [[400, 5, 2]] as const, [([p, r, t]) => `What is the total amount after ${t} years if $${p} earns simple interest at ${r}% per year?`], ([p, r, t]) => num(p + (p * r * t) / 100)),
];

// ---- geometry (formulas with Math.PI) ---------------------------------------------------------------------------------
const geometry = [
  ...family('geometry', [5, 3, 10, 2.5] as const, [(r) => `Find the area of a circle with radius ${r} cm.`, (r) => `What is the area of a circle whose radius is ${r} m?`], (r) => num(Math.PI * r * r)),
  ...family('geometry', [8, 14] as const, [(d) => `Find the circumference of a circle with diameter ${d} cm.`, (d) => `A circle has a diameter of ${d} m. What is its circumference?`], (d) => num(Math.PI * d)),
  ...family('geometry', [[8, 5], [12, 3.5]] as const, [([l, w]) => `Find the area of a rectangle with length ${l} cm and width ${w} cm.`, ([l, w]) => `A rectangle is ${l} m long and ${w} m wide. What is its area?`], ([l, w]) => num(l * w)),
  ...family('geometry', [[8, 5], [20, 7]] as const, [([l, w]) => `Find the perimeter of a rectangle with length ${l} cm and width ${w} cm.`, ([l, w]) => `What is the perimeter of a rectangle of length ${l} m and width ${w} m?`], ([l, w]) => num(2 * (l + w))),
  ...family('geometry', [6, 4.5] as const, [(s) => `Find the area of a square with side ${s} cm.`, (s) => `A square has sides of ${s} m. What is its perimeter?`], (s) => num(s * s)),
  ...family('geometry', [[10, 6], [7, 4]] as const, [([b, h]) => `Find the area of a triangle with base ${b} cm and height ${h} cm.`, ([b, h]) => `A triangle has a base of ${b} m and a height of ${h} m. What is its area?`], ([b, h]) => num((b * h) / 2)),
  ...family('geometry', [3, 5] as const, [(s) => `Find the volume of a cube with side ${s} cm.`, (s) => `What is the volume of a cube whose edge is ${s} m?`], (s) => num(s ** 3)),
  ...family('geometry', [[4, 3, 2], [10, 5, 6]] as const, [([l, w, h]) => `Find the volume of a box with length ${l} cm, width ${w} cm and height ${h} cm.`, ([l, w, h]) => `A cuboid is ${l} m long, ${w} m wide and ${h} m high. What is its volume?`], ([l, w, h]) => num(l * w * h)),
  ...family('geometry', [[3, 10], [2, 5]] as const, [([r, h]) => `Find the volume of a cylinder with radius ${r} cm and height ${h} cm.`, ([r, h]) => `A cylinder has radius ${r} m and height ${h} m. What is its volume?`], ([r, h]) => num(Math.PI * r * r * h)),
  ...family('geometry', [3, 6] as const, [(r) => `Find the volume of a sphere with radius ${r} cm.`, (r) => `What is the volume of a sphere whose radius is ${r} m?`], (r) => num((4 / 3) * Math.PI * r ** 3)),
  ...family('geometry', [[3, 4]] as const, [([r, h]) => `Find the volume of a cone with radius ${r} cm and height ${h} cm.`, ([r, h]) => `A cone has radius ${r} m and height ${h} m. What is its volume?`], ([r, h]) => num((Math.PI * r * r * h) / 3)),
];
// The second phrasing of the square family asks for the perimeter: label it as such.
for (const p of geometry) if (/square has sides of ([\d.]+) m\. What is its perimeter/.exec(p.text)) Object.assign(p, { label: num(4 * Number(/sides of ([\d.]+)/.exec(p.text)![1])) });

// ---- unit conversion (own factor table) ------------------------------------------------------------------------------
const FACTORS: Record<string, number> = { 'km>m': 1000, 'm>cm': 100, 'h>minutes': 60, 'kg>g': 1000, 'miles>km': 1.609344, 'minutes>seconds': 60, 'km/h>m/s': 1 / 3.6, 'litres>ml': 1000 };
const conversions = family('unit_conversion', [[5, 'km', 'm'], [2.5, 'm', 'cm'], [3.5, 'hours', 'minutes'], [4.2, 'kg', 'g'], [10, 'miles', 'km'], [7, 'minutes', 'seconds'], [72, 'km/h', 'm/s'], [1.5, 'litres', 'ml']] as const, [([v, f, t]) => `Convert ${v} ${f} to ${t}.`, ([v, f, t]) => `How many ${t} are in ${v} ${f}?`, ([v, f, t]) => `Express ${v} ${f} in ${t}`], ([v, f, t]) => num(v * FACTORS[`${f === 'hours' ? 'h' : f}>${t}`]!));

// ---- derivatives and integrals: results written by hand (and verified numerically by the bench) ------------------------------
const DERIVATIVES: readonly [string, string][] = [
  ['x^3 + 2x', '3x^2 + 2'], ['5x^4 - 3x^2 + 7', '20x^3 - 6x'], ['x^2 * sin(x)', '2x sin(x) + x^2 cos(x)'], ['exp(3x)', '3 exp(3x)'], ['ln(x^2 + 1)', '2x/(x^2 + 1)'], ['(x^2 + 1)/(x - 1)', '(x^2 - 2x - 1)/(x - 1)^2'],
  ['sqrt(x)', '1/(2 sqrt(x))'], ['cos(2x)', '-2 sin(2x)'], ['(3x + 1)^4', '12 (3x + 1)^3'], ['x * exp(x)', 'exp(x) (x + 1)'], ['tan(x)', '1/cos(x)^2'], ['4/x', '-4/x^2'],
];
const derivatives = family('derivative', DERIVATIVES, [([f]) => `Find the derivative of ${f}`, ([f]) => `Differentiate ${f} with respect to x.`, ([f]) => `If f(x) = ${f}, find f'(x).`, ([f]) => `Find dy/dx when y = ${f}`], ([, d]) => ({ kind: 'expression', expression: d, variable: 'x' }));
const INTEGRALS: readonly [string, string][] = [
  ['3x^2 + 2x', 'x^3 + x^2'], ['sin(x)', '-cos(x)'], ['exp(2x)', 'exp(2x)/2'], ['4x^3 - 6x + 1', 'x^4 - 3x^2 + x'], ['cos(3x)', 'sin(3x)/3'], ['1/x', 'ln(x)'], ['x^(1/2)', '(2/3) x^(3/2)'], ['5', '5x'], ['x * exp(x)', '(x - 1) exp(x)'], ['2/x^3', '-1/x^2'],
];
const integrals = family('integral', INTEGRALS, [([f]) => `Integrate ${f} dx`, ([f]) => `Find the integral of ${f} with respect to x.`, ([f]) => `Find the antiderivative of ${f}`], ([, F]) => ({ kind: 'expression', expression: F, variable: 'x', upToConstant: true }));
const DEFINITE: readonly [string, number, number, number][] = [['3x^2', 0, 2, 8], ['2x + 1', 1, 3, 10], ['x^3', -1, 1, 0]];
const definite = family('integral', DEFINITE, [([f, a, b]) => `Integrate ${f} dx from ${a} to ${b}`, ([f, a, b]) => `Find the integral of ${f} from ${a} to ${b}.`], ([, , , v]) => num(v));

// ---- limits of rational functions ----------------------------------------------------------------------------------------------
const LIMITS: readonly [string, string, number | 'infinity' | '-infinity' | 'does_not_exist'][] = [
  ['(x^2 - 4)/(x - 2)', '2', 4], ['(x^2 - 1)/(x + 1)', '-1', -2], ['(x^3 - 8)/(x - 2)', '2', 12], ['(2x^2 + 1)/(x^2 - 3)', 'infinity', 2], ['(3x + 1)/(x^2 + 5)', 'infinity', 0],
  ['(x^2 + 2x)/(x + 3)', '1', 0.75], ['(x^2 - 5x + 6)/(x^2 - 9)', '3', 1 / 6], ['1/(x - 1)^2', '1', 'infinity'], ['1/(x - 2)', '2', 'does_not_exist'], ['(x^3 + 1)/(2x - 5)', 'infinity', 'infinity'],
];
const limits = family('limit', LIMITS, [([f, a]) => `Find the limit of ${f} as x approaches ${a}`, ([f, a]) => `Evaluate lim x -> ${a} ${f}`, ([f, a]) => `What is the limit of ${f} as x tends to ${a}?`], ([, , v]) => ({ kind: 'limit', value: v }));

// ---- out of scope: the engine must not claim these ----------------------------------------------------------------------------------
const OUT_OF_SCOPE: readonly string[] = [
  'Prove that there are infinitely many primes.', 'Prove that the square root of 2 is irrational.', 'Solve x^3 - 6x^2 + 11x - 6 = 0', 'Solve sin(x) = 0.5',
  'Find x such that x = 3 mod 5', 'A bag has 3 red and 5 blue balls. What is the probability of drawing a red ball?', 'Solve x + y = 3',
  'A car travels 150 km in 2 hours and then 100 km in 3 hours. What is its average speed?',
  'Find the limit of sin(x)/x as x approaches 0', 'Integrate exp(x^2) dx', 'Factor x^4 + 4', 'Solve x^2 + y^2 = 25', 'Find the eigenvalues of the matrix [[1, 2], [3, 4]]',
  'How many ways can 5 people sit in a row?', 'Find the 10th term of the arithmetic sequence 3, 7, 11',
  'Solve 2^x = 10',
];
const outOfScope: BenchProblem[] = OUT_OF_SCOPE.map((text) => ({ category: 'out_of_scope', text, label: undefined }));

// ---- brought into scope by issue 24 (they were out-of-scope items above until its syllabus solvers) ----------------------------------
const syllabus: BenchProblem[] = [
  { category: 'geometry', text: 'What is the area of a trapezium with parallel sides 3 cm and 5 cm and height 4 cm?', label: num(16) },
  { category: 'absolute_value', text: 'Solve |x - 3| = 5', label: real(8, -2) },
  { category: 'statistics', text: 'What is the mean of 4, 8, 15, 16, 23 and 42?', label: num(18) },
  { category: 'surd', text: 'Simplify sqrt(50)', label: num(5 * Math.SQRT2) },
];

/** The hand-written calculus results, for the bench's own check of its labels. */
export const CALCULUS_LABELS = { derivatives: DERIVATIVES, integrals: INTEGRALS };

/** The symbolic cases with their expected results, for comparing symbolic libraries (cas-compare.ts). */
export const SYMBOLIC_CASES = {
  factor: FACTOR,
  expand: EXPAND.map((e) => [e, e] as const),
  simplify: RATIONAL,
  differentiate: DERIVATIVES,
  integrate: INTEGRALS,
};

export const PROBLEMS: readonly BenchProblem[] = [
  ...arithmetic, ...linear, ...quadratic, ...systems, ...inequalities, ...factor, ...expand, ...rational, ...powers, ...exponential, ...logs, ...logEquations,
  ...percent, ...SDT, ...interest, ...geometry, ...conversions, ...derivatives, ...integrals, ...definite, ...limits, ...outOfScope, ...syllabus,
];
