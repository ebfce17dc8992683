import { pick, randomInt } from './random.js';

/** A generated printed problem: what a student would photograph, as it is displayed. */
export interface GeneratedProblem {
  readonly family: string;
  readonly text: string;
}

type Template = (random: () => number) => string;

const NAMES = ['Ana', 'Ben', 'Chen', 'Dara', 'Eli', 'Farah', 'Goran', 'Hana', 'Ivo', 'Jonas', 'Kemal', 'Lena', 'Mika', 'Nora'];
const ITEMS = ['apples', 'pencils', 'marbles', 'tickets', 'books', 'stamps', 'cookies', 'shells'];

/**
 * Problem families across the tagger's subjects. Numbers are drawn per problem, so two problems of
 * one family differ in a few digits only: the hardest "different problem, same layout" negatives.
 */
const FAMILIES: Record<string, Template> = {
  linear: (r) => `Solve for x: ${randomInt(r, 2, 9)}x + ${randomInt(r, 2, 40)} = ${randomInt(r, 41, 99)}. Show each step of your work.`,
  quadratic: (r) =>
    `Find all real roots of the equation x² − ${randomInt(r, 2, 15)}x + ${randomInt(r, 2, 30)} = 0 and check them by substitution.`,
  system: (r) =>
    `Solve the system of equations: ${randomInt(r, 2, 7)}x + ${randomInt(r, 2, 7)}y = ${randomInt(r, 10, 60)} and x − ${randomInt(r, 2, 9)}y = ${randomInt(r, 1, 20)}.`,
  derivative: (r) =>
    `Find the derivative of f(x) = ${randomInt(r, 2, 9)}x³ − ${randomInt(r, 2, 9)}x² + ${randomInt(r, 2, 20)}x and evaluate it at x = ${randomInt(r, 1, 5)}.`,
  integral: (r) => `Evaluate the definite integral of ${randomInt(r, 2, 12)}x² + ${randomInt(r, 1, 9)} from x = 0 to x = ${randomInt(r, 2, 6)}.`,
  limit: (r) => `Compute the limit as x approaches ${randomInt(r, 1, 9)} of (x² − ${randomInt(r, 2, 81)}) / (x − ${randomInt(r, 1, 9)}).`,
  rectangle: (r) =>
    `A rectangle has a length of ${randomInt(r, 5, 40)} cm and a width of ${randomInt(r, 2, 30)} cm. Find its area and its perimeter.`,
  triangle: (r) => {
    const a = randomInt(r, 20, 80);
    const b = randomInt(r, 20, 80);
    return `The angles of a triangle measure ${a}°, ${b}° and x°. Find the value of x and classify the triangle.`;
  },
  circle: (r) => `A circle has a radius of ${randomInt(r, 2, 25)} m. Calculate its circumference and its area to two decimal places.`,
  speed: (r) =>
    `A train travels ${randomInt(r, 60, 600)} km in ${randomInt(r, 2, 9)} hours. What is its average speed in km/h? How far does it go in ${randomInt(r, 2, 12)} hours?`,
  projectile: (r) =>
    `A ball is thrown straight up with an initial velocity of ${randomInt(r, 5, 40)} m/s. Taking g = 9.8 m/s², how high does it rise before it stops?`,
  force: (r) => `A force of ${randomInt(r, 10, 500)} N acts on a mass of ${randomInt(r, 2, 90)} kg. Find the acceleration and the work done over ${randomInt(r, 2, 50)} m.`,
  moles: (r) => `How many moles of NaCl are present in ${randomInt(r, 10, 900)} g of sodium chloride? Use a molar mass of 58.44 g/mol.`,
  dilution: (r) =>
    `A chemist dilutes ${randomInt(r, 10, 200)} mL of a ${randomInt(r, 1, 12)} M acid solution to ${randomInt(r, 250, 1000)} mL. What is the new concentration?`,
  mean: (r) => {
    const values = Array.from({ length: randomInt(r, 5, 8) }, () => randomInt(r, 1, 99));
    return `Compute the mean, the median and the range of the data set: ${values.join(', ')}.`;
  },
  probability: (r) =>
    `A bag holds ${randomInt(r, 2, 12)} red and ${randomInt(r, 2, 12)} blue marbles. Two are drawn without replacement. What is the probability that both are red?`,
  fractions: (r) =>
    `Simplify (${randomInt(r, 1, 9)}/${randomInt(r, 2, 12)}) × (${randomInt(r, 1, 9)}/${randomInt(r, 2, 12)}) ÷ ${randomInt(r, 2, 9)} and write the answer in lowest terms.`,
  wordArithmetic: (r) =>
    `${pick(r, NAMES)} has ${randomInt(r, 12, 90)} ${pick(r, ITEMS)} and gives ${randomInt(r, 2, 11)} to each of ${randomInt(r, 2, 6)} friends. How many are left?`,
  percent: (r) => `A jacket costs $${randomInt(r, 20, 300)}. It is discounted by ${randomInt(r, 5, 60)}% and then taxed at ${randomInt(r, 3, 20)}%. What is the final price?`,
  exponent: (r) => `Simplify the expression (${randomInt(r, 2, 9)}a³b²)² · ${randomInt(r, 2, 9)}a⁻¹b and state any restrictions on a and b.`,
};

export const FAMILY_NAMES: readonly string[] = Object.keys(FAMILIES);

export function generateProblem(random: () => number, family: string): GeneratedProblem {
  const template = FAMILIES[family];
  if (template === undefined) throw new Error(`unknown family ${family}`);
  return { family, text: template(random) };
}

export function generateAnyProblem(random: () => number): GeneratedProblem {
  return generateProblem(random, pick(random, FAMILY_NAMES));
}
