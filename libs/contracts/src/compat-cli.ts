/**
 * `npm run contracts:check`: compares the generated schemas with the previous release's
 * (contracts/baseline/) and exits 1 on a breaking change under an existing subject.
 * `npm run contracts:check -- --update-baseline` (at a release) replaces the baseline with today's schemas.
 */
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { checkAgainstBaseline, formatReports } from './compat.js';
import { currentSchemas, readBaseline } from './compat-files.js';

const contracts = join(process.cwd(), 'contracts');
if (process.argv.includes('--update-baseline')) {
  rmSync(join(contracts, 'baseline'), { recursive: true, force: true });
  mkdirSync(join(contracts, 'baseline'), { recursive: true });
  cpSync(join(contracts, 'events'), join(contracts, 'baseline/events'), { recursive: true });
  console.log('contracts: baseline replaced by the current schemas');
} else {
  const reports = checkAgainstBaseline(readBaseline(contracts), currentSchemas());
  if (reports.length > 0) {
    console.error(formatReports(reports));
    console.error(`contracts: ${reports.length} message(s) changed incompatibly; publish a .v<N+1> subject beside the old one (contracts/README.md)`);
    process.exit(1);
  }
  console.log('contracts: compatible with the baseline');
}
