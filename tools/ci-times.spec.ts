import { fileTimes, timeOf } from './ci-times.js';

describe('ci-times', () => {
  const reports = [
    { testResults: [{ name: '/repo/apps/a/src/a.spec.ts', startTime: 1_000, endTime: 2500 }, { name: '/repo/libs/b/src/b.int.spec.ts', startTime: 1_000, endTime: 13000 }] },
    { testResults: [{ name: '/repo/tools/c.boot.spec.ts', startTime: 1_000, endTime: 41250 }] },
  ];

  it("reads each file's jest time from every report, relative to the root, slowest first", () => {
    expect(fileTimes(reports, '/repo')).toEqual([
      { file: 'tools/c.boot.spec.ts', seconds: 40.25 },
      { file: 'libs/b/src/b.int.spec.ts', seconds: 12 },
      { file: 'apps/a/src/a.spec.ts', seconds: 1.5 },
    ]);
  });

  it('sums the files among the given paths, and only those', () => {
    const times = fileTimes(reports, '/repo');
    expect(timeOf(times, new Set(['apps/a/src/a.spec.ts', 'tools/c.boot.spec.ts', 'docs/x.md']))).toEqual({
      files: [
        { file: 'tools/c.boot.spec.ts', seconds: 40.25 },
        { file: 'apps/a/src/a.spec.ts', seconds: 1.5 },
      ],
      seconds: 41.75,
    });
  });
});
