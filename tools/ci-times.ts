import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How much CI time spec files take, from the jest reports `scripts/test.sh` writes
 * (`.ci-reports/jest-*.json`): the issues' "CI budget" lines need the figure, and jest's console output
 * names only slow files. With `--since <rev>`, the files changed since that revision are summed: an
 * upper bound of what the changes added (a changed file's older tests are counted too).
 *
 *   node dist/tools/ci-times.js [--since REV] [--top N] .ci-reports/jest-tests.json [.ci-reports/jest-boot.json]
 */

/** What this reads of jest's `--json` report. */
export interface JestReport {
  readonly testResults: ReadonlyArray<{ readonly name: string; readonly startTime: number; readonly endTime: number }>;
}

export interface FileTime {
  readonly file: string;
  readonly seconds: number;
}

/** Each spec file's jest time, in seconds, relative to `root`, slowest first. */
export function fileTimes(reports: readonly JestReport[], root: string): FileTime[] {
  return reports
    .flatMap((report) => report.testResults.map((result) => ({ file: relative(root, result.name), seconds: (result.endTime - result.startTime) / 1000 })))
    .sort((a, b) => b.seconds - a.seconds);
}

/** The files of `times` among `paths`, and their sum. */
export function timeOf(times: readonly FileTime[], paths: ReadonlySet<string>): { readonly files: FileTime[]; readonly seconds: number } {
  const files = times.filter((t) => paths.has(t.file));
  return { files, seconds: files.reduce((sum, t) => sum + t.seconds, 0) };
}

function main(argv: readonly string[]): void {
  const flag = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const values = new Set([flag('since'), flag('top')].filter((v) => v !== undefined));
  const reports = argv.filter((a) => !a.startsWith('--') && !values.has(a)).map((path) => JSON.parse(readFileSync(path, 'utf8')) as JestReport);
  if (reports.length === 0) throw new Error('usage: ci-times [--since REV] [--top N] <jest report.json>...');
  const root = resolve('.');
  const times = fileTimes(reports, root);
  const total = times.reduce((sum, t) => sum + t.seconds, 0);
  console.log(`${times.length} spec files, ${total.toFixed(1)} s of jest time`);
  for (const t of times.slice(0, Number(flag('top') ?? 15))) console.log(`${t.seconds.toFixed(1).padStart(8)} s  ${t.file}`);
  const since = flag('since');
  if (since !== undefined) {
    const changed = new Set(execFileSync('git', ['diff', '--name-only', `${since}..HEAD`], { encoding: 'utf8' }).split('\n').filter((f) => f !== ''));
    const { files, seconds } = timeOf(times, changed);
    console.log(`changed since ${since}: ${files.length} spec files, ${seconds.toFixed(1)} s of jest time (an upper bound of what the changes added)`);
    for (const t of files) console.log(`${t.seconds.toFixed(1).padStart(8)} s  ${t.file}`);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) main(process.argv.slice(2));
