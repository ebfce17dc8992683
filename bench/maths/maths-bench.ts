/**
 * The maths engine on a labelled set of school problems (bench/maths/problem-set.ts, ≥ 300 problems,
 * several phrasings each, labels written by the bench): per category the share solved, the share
 * correct, wrong final answers and p99 solve time; out-of-scope problems claimed; and the answer
 * check against a scripted model that is wrong 20 % of the time.
 *
 *   npm run build && node dist/bench/maths/maths-bench.js [--repeat 5]
 */
import { checkFinalAnswer, solveProblem } from '@openpaw/maths';
import { matches, valueAt } from './grade.js';
import { CALCULUS_LABELS, PROBLEMS } from './problem-set.js';
import { modelAnswer } from './scripted-model.js';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const pct = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/**
 * The bench's own check of its hand-written calculus labels (central differences), so a wrong
 * label can never pass as a wrong engine answer, nor a wrong answer as right.
 */
function labelErrors(): string[] {
  const errors: string[] = [];
  const ln = (e: string): string => e.replace(/\bln\(/g, 'log(');
  const slope = (f: string, x: number): number | undefined => {
    const [up, down] = [valueAt(ln(f), 'x', x + 1e-6), valueAt(ln(f), 'x', x - 1e-6)];
    return up === undefined || down === undefined ? undefined : (up - down) / 2e-6;
  };
  const agrees = (a: number | undefined, b: number | undefined): boolean => a === undefined || b === undefined || Math.abs(a - b) <= 1e-4 * Math.max(1, Math.abs(b));
  for (const [f, d] of CALCULUS_LABELS.derivatives) {
    if (![0.35, 0.8, 1.3, 2.6].every((x) => agrees(slope(f, x), valueAt(ln(d), 'x', x)))) errors.push(`derivative of ${f} labelled ${d}`);
  }
  for (const [f, F] of CALCULUS_LABELS.integrals) {
    if (![0.35, 0.8, 1.3, 2.6].every((x) => agrees(slope(F, x), valueAt(ln(f), 'x', x)))) errors.push(`integral of ${f} labelled ${F}`);
  }
  return errors;
}

/** Deterministic 20 %: a hash of the problem text decides which answers the scripted model gets wrong. */
function scriptedWrong(text: string): boolean {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h % 5 === 0;
}

function main(): void {
  const repeat = arg('repeat', 5);
  const errors = labelErrors();
  if (errors.length > 0) throw new Error(`bench labels failed their own check:\n${errors.join('\n')}`);
  for (const p of PROBLEMS) solveProblem(p.text); // warm-up (JIT, mathjs caches)

  interface Row { total: number; solved: number; correct: number; wrong: string[]; times: number[] }
  const rows = new Map<string, Row>();
  const all: number[] = [];
  for (const p of PROBLEMS) {
    const row = rows.get(p.category) ?? { total: 0, solved: 0, correct: 0, wrong: [], times: [] };
    rows.set(p.category, row);
    row.total++;
    let outcome = solveProblem(p.text);
    for (let i = 0; i < repeat; i++) {
      const t0 = performance.now();
      outcome = solveProblem(p.text);
      const ms = performance.now() - t0;
      row.times.push(ms);
      all.push(ms);
    }
    if (!outcome.solved) continue;
    row.solved++;
    if (p.label !== undefined && matches(outcome.answer, p.label)) row.correct++;
    else row.wrong.push(`${p.text} → ${outcome.finalAnswer}`);
  }

  const lines: string[] = [];
  lines.push(`${'category'.padEnd(22)} ${'n'.padStart(4)} ${'solved'.padStart(8)} ${'correct'.padStart(8)} ${'wrong'.padStart(6)} ${'p99 ms'.padStart(8)}`);
  let inScope = 0;
  let solved = 0;
  let correct = 0;
  let wrong = 0;
  for (const [category, row] of [...rows].sort(([a], [b]) => a.localeCompare(b))) {
    row.times.sort((a, b) => a - b);
    const share = (n: number): string => `${((100 * n) / row.total).toFixed(0)}%`;
    lines.push(`${category.padEnd(22)} ${String(row.total).padStart(4)} ${share(row.solved).padStart(8)} ${share(row.correct).padStart(8)} ${String(row.wrong.length).padStart(6)} ${pct(row.times, 99).toFixed(2).padStart(8)}`);
    if (category === 'out_of_scope') continue;
    inScope += row.total;
    solved += row.solved;
    correct += row.correct;
    wrong += row.wrong.length;
  }
  all.sort((a, b) => a - b);
  lines.push('');
  lines.push(`in scope: ${inScope} problems, solved ${((100 * solved) / inScope).toFixed(1)}%, correct ${((100 * correct) / inScope).toFixed(1)}%, wrong final answers ${wrong}`);
  lines.push(`out of scope: ${rows.get('out_of_scope')?.total ?? 0} problems, claimed ${rows.get('out_of_scope')?.solved ?? 0}`);
  lines.push(`solve time over ${all.length} solves: p50 ${pct(all, 50).toFixed(2)} ms, p99 ${pct(all, 99).toFixed(2)} ms, max ${all.at(-1)!.toFixed(2)} ms`);
  for (const row of rows.values()) for (const w of row.wrong) lines.push(`  WRONG/CLAIMED: ${w}`);

  // The answer check against a scripted model that is wrong 20 % of the time.
  let wrongAnswers = 0;
  let caught = 0;
  let passedWrong = 0;
  let uncheckedWrong = 0;
  let falseAlarms = 0;
  let checkedRight = 0;
  let wrongInScope = 0;
  const misses: string[] = [];
  for (const p of PROBLEMS) {
    if (p.label === undefined) continue;
    const isWrong = scriptedWrong(p.text);
    const answer = modelAnswer(p.label, isWrong);
    if (answer === undefined) continue;
    const check = checkFinalAnswer(p.text, answer);
    const engineSolves = solveProblem(p.text).solved;
    if (isWrong) {
      wrongAnswers++;
      if (engineSolves) wrongInScope++;
      if (check.verdict === 'disagrees') caught++;
      else if (check.verdict === 'unchecked') uncheckedWrong++;
      else {
        passedWrong++;
        misses.push(`${p.text} ← ${answer}`);
      }
    } else if (check.verdict === 'disagrees') {
      falseAlarms++;
      misses.push(`FALSE ALARM ${p.text} ← ${answer}: ${check.detail}`);
    } else if (check.verdict === 'agrees') checkedRight++;
  }
  lines.push('');
  lines.push(`scripted model (20% wrong): ${wrongAnswers} wrong final answers, ${wrongInScope} of them on problems the engine solves; caught ${caught}, passed as right ${passedWrong}, unchecked ${uncheckedWrong}`);
  lines.push(`  right answers confirmed ${checkedRight}, right answers rejected (false alarms) ${falseAlarms}`);
  for (const m of misses) lines.push(`  ${m}`);
  console.log(lines.join('\n'));
}

main();
