import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkAgainstBaseline, formatReports } from './compat.js';
import { currentSchemas, missingFromBaseline, readBaseline } from './compat-files.js';

const contracts = join(import.meta.dirname, '../../../contracts');

describe('contracts against the previous release (contracts/baseline/)', () => {
  const baseline = readBaseline(contracts);
  const current = currentSchemas();

  it('have no breaking change under an existing subject version (a break needs a .v<N+1> subject; see contracts/README.md)', () => {
    expect(Object.keys(baseline).length).toBeGreaterThan(10);
    expect(formatReports(checkAgainstBaseline(baseline, current))).toBe('');
  });

  it('cover every published subject-version (a new one is added with `npm run contracts:check -- --add-missing` in the change that introduces it)', () => {
    expect(missingFromBaseline(baseline, current)).toEqual([]);
  });

  it('keep every entry as it was committed (contracts/baseline/SHA256SUMS; only a release replaces the baseline)', () => {
    const sums = readFileSync(join(contracts, 'baseline/SHA256SUMS'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.split(/\s+/) as [string, string]);
    const recorded = new Map(sums.map(([sum, path]) => [path, sum]));
    const actual = Object.keys(baseline).map((path) => [path, createHash('sha256').update(readFileSync(join(contracts, 'baseline', path))).digest('hex')] as const);
    // A changed entry, or one added without its sum, is listed here.
    expect(actual.filter(([path, sum]) => recorded.get(path) !== sum).map(([path]) => path)).toEqual([]);
  });
});
