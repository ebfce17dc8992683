/**
 * nerdamer vs algebrite on the bench's symbolic cases (factor, expand, simplify rational
 * expressions, differentiate, integrate): how many results are right (checked numerically against
 * the bench's labels, factored forms also required to be products) and how long each call takes.
 * The numbers behind docs/adr/0005-maths-engine-symbolic-library.md. algebrite is not a project
 * dependency; install it for the run only:
 *
 *   npm install --no-save algebrite@1.4.0 && npm run build && node dist/bench/maths/cas-compare.js
 */
import { createRequire } from 'node:module';
import { parse } from 'mathjs';
import { sameFunction } from './grade.js';
import { SYMBOLIC_CASES } from './problem-set.js';

type Operation = keyof typeof SYMBOLIC_CASES;
interface Cas {
  readonly name: string;
  run(operation: Operation, expression: string): string;
}

const require = createRequire(import.meta.url);

function loadNerdamer(): Cas {
  const nerdamer = require('nerdamer') as (e: string) => { toString(): string };
  require('nerdamer/Algebra.js');
  require('nerdamer/Calculus.js');
  const call: Record<Operation, (e: string) => string> = {
    factor: (e) => `factor(${e})`,
    expand: (e) => `expand(${e})`,
    simplify: (e) => `simplify(${e})`,
    differentiate: (e) => `diff(${e}, x)`,
    integrate: (e) => `integrate(${e}, x)`,
  };
  return { name: 'nerdamer 1.1.13', run: (op, e) => nerdamer(call[op](e)).toString() };
}

function loadAlgebrite(): Cas | undefined {
  let algebrite: { run(e: string): string };
  try {
    algebrite = require('algebrite') as { run(e: string): string };
  } catch {
    return undefined;
  }
  const call: Record<Operation, (e: string) => string> = {
    factor: (e) => `factor(${e})`,
    expand: (e) => `expand(${e})`,
    simplify: (e) => `simplify(${e})`,
    differentiate: (e) => `d(${e}, x)`,
    integrate: (e) => `integral(${e}, x)`,
  };
  return { name: 'algebrite 1.4.0', run: (op, e) => algebrite.run(call[op](e)) };
}

/** Explicit products and the natural log as `log`: the syntax both libraries read. */
const explicit = (e: string): string =>
  parse(
    e
      .replace(/\bln\(/g, 'log(')
      .replace(/\)\s*\(/g, ')*(')
      .replace(/^x\(/, 'x*('),
  ).toString({ implicit: 'show' });

function main(): void {
  const libraries = [loadNerdamer(), loadAlgebrite()].filter((c): c is Cas => c !== undefined);
  if (libraries.length < 2) console.log('algebrite is not installed: npm install --no-save algebrite@1.4.0 (only nerdamer is measured)');
  for (const cas of libraries) {
    const times: number[] = [];
    const lines: string[] = [];
    let right = 0;
    let total = 0;
    // One untimed pass first: both libraries are much slower on their first calls.
    for (const operation of Object.keys(SYMBOLIC_CASES) as Operation[]) {
      for (const [input] of SYMBOLIC_CASES[operation]) {
        try {
          cas.run(operation, explicit(input));
        } catch {
          // measured below
        }
      }
    }
    for (const operation of Object.keys(SYMBOLIC_CASES) as Operation[]) {
      let opRight = 0;
      for (const [input, expected] of SYMBOLIC_CASES[operation]) {
        total++;
        let output = '';
        const t0 = performance.now();
        try {
          output = cas.run(operation, explicit(input));
        } catch (error) {
          output = `error: ${(error as Error).message}`;
        }
        times.push(performance.now() - t0);
        const asMathjs = output.replace(/\bln\(/g, 'log(');
        const isProduct = operation !== 'factor' || /\)\s*\*|\*\s*\(|^\(.*\)\^\d+$|^\d+\s*\*/.test(output.replace(/\s+/g, ''));
        let ok = false;
        try {
          ok = isProduct && sameFunction(asMathjs, explicit(expected), 'x', operation === 'integrate');
        } catch {
          ok = false;
        }
        if (ok) opRight++;
        else lines.push(`    ${operation}(${input}) → ${output}`);
      }
      right += opRight;
      lines.unshift(`  ${operation}: ${opRight}/${SYMBOLIC_CASES[operation].length}`);
    }
    times.sort((a, b) => a - b);
    const at = (p: number): string => (times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))] ?? NaN).toFixed(2);
    console.log(`${cas.name}: ${right}/${total} right; per call p50 ${at(50)} ms, p99 ${at(99)} ms, max ${times.at(-1)!.toFixed(2)} ms (after a warm-up pass)`);
    console.log(lines.join('\n'));
  }
}

main();
