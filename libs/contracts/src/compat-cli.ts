/**
 * `npm run contracts:check`: compares the generated schemas with the previous release's
 * (contracts/baseline/) and exits 1 on a breaking change under an existing subject.
 * `npm run contracts:check -- --add-missing` adds a baseline entry for each new subject-version and
 * never touches an existing one (what a change that adds a message runs).
 * `npm run contracts:check -- --update-baseline` (at a release) replaces the baseline with today's schemas.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkAgainstBaseline, formatReports } from './compat.js';
import { currentSchemas, missingFromBaseline, readBaseline } from './compat-files.js';

const contracts = join(process.cwd(), 'contracts');
const SUMS = join(contracts, 'baseline/SHA256SUMS');

/** `<sha256>  <path>` lines: baseline.spec.ts fails when an entry no longer matches its line. */
function sumLines(paths: readonly string[]): string {
  return paths.map((path) => `${createHash('sha256').update(readFileSync(join(contracts, 'baseline', path))).digest('hex')}  ${path}\n`).join('');
}

if (process.argv.includes('--update-baseline')) {
  rmSync(join(contracts, 'baseline'), { recursive: true, force: true });
  mkdirSync(join(contracts, 'baseline'), { recursive: true });
  cpSync(join(contracts, 'events'), join(contracts, 'baseline/events'), { recursive: true });
  writeFileSync(SUMS, sumLines(Object.keys(readBaseline(contracts)).sort()));
  console.log('contracts: baseline replaced by the current schemas');
} else if (process.argv.includes('--add-missing')) {
  const missing = missingFromBaseline(readBaseline(contracts), currentSchemas());
  for (const path of missing) {
    mkdirSync(dirname(join(contracts, 'baseline', path)), { recursive: true });
    cpSync(join(contracts, path), join(contracts, 'baseline', path));
  }
  appendFileSync(SUMS, sumLines(missing));
  console.log(`contracts: ${missing.length} new subject-version(s) added to the baseline${missing.length === 0 ? '' : `: ${missing.join(', ')}`}`);
} else {
  const reports = checkAgainstBaseline(readBaseline(contracts), currentSchemas());
  if (reports.length > 0) {
    console.error(formatReports(reports));
    console.error(`contracts: ${reports.length} message(s) changed incompatibly; publish a .v<N+1> subject beside the old one (contracts/README.md)`);
    process.exit(1);
  }
  const missing = missingFromBaseline(readBaseline(contracts), currentSchemas());
  if (missing.length > 0) {
    console.error(`contracts: no baseline entry for ${missing.join(', ')}; run npm run contracts:check -- --add-missing and commit contracts/baseline/`);
    process.exit(1);
  }
  console.log('contracts: compatible with the baseline');
}
