import { join } from 'node:path';
import { checkAgainstBaseline, formatReports } from './compat.js';
import { currentSchemas, readBaseline } from './compat-files.js';

describe('contracts against the previous release (contracts/baseline/)', () => {
  it('have no breaking change under an existing subject version (a break needs a .v<N+1> subject; see contracts/README.md)', () => {
    const baseline = readBaseline(join(import.meta.dirname, '../../../contracts'));
    expect(Object.keys(baseline).length).toBeGreaterThan(10);
    expect(formatReports(checkAgainstBaseline(baseline, currentSchemas()))).toBe('');
  });
});
