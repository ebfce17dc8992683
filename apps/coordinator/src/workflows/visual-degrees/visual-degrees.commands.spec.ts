import { discoveryQueries } from '@openpaw/contracts';
import { discoveryQueriesBeside } from './visual-degrees.commands.js';
import type { VisualDegreesData } from './visual-degrees.data.js';

const withSearches = (directSearches: VisualDegreesData['directSearches']): VisualDegreesData => ({ directSearches }) as VisualDegreesData;

describe('discoveryQueriesBeside (S2 queries)', () => {
  it("uses the spec's example templates when no direct attempt named the frontier (or the run predates the record)", () => {
    expect(discoveryQueriesBeside(withSearches(undefined), { name: 'Ada Stone' })).toEqual(discoveryQueries('Ada Stone'));
    expect(discoveryQueriesBeside(withSearches([{ between: ['Bea North', 'Cy Lane'], queries: ['Bea North Cy Lane'] }]), { name: 'Ada Stone' })).toEqual(discoveryQueries('Ada Stone'));
  });

  it("reads the latest direct attempt that named the frontier again, either side and however the name was spelled, and adds one new query", () => {
    const data = withSearches([
      { between: ['Ada Stone', 'Bea North'], queries: ['Ada Stone Bea North'] },
      { between: ['Xavier Reed', 'bea  NORTH'], queries: ['Xavier Reed bea  NORTH'] },
      { between: ['Xavier Reed', 'Yuliya Park'], queries: ['Xavier Reed Yuliya Park'] },
    ]);
    expect(discoveryQueriesBeside(data, { name: 'Bea North', celebrityId: 'c-bea' })).toEqual(['Xavier Reed bea  NORTH', 'Bea North with celebrities']);
    expect(discoveryQueriesBeside(data, { name: 'Ada Stone' })).toEqual(['Ada Stone Bea North', 'Ada Stone with celebrities']);
  });
});
