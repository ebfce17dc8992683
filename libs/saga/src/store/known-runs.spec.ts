import type { RunRecord } from '../records.js';
import { KnownRuns } from './known-runs.js';

const run = (id: string, version = 1): RunRecord => ({
  id,
  type: 't',
  state: 'WORKING',
  attemptNo: 1,
  idempotencyKey: id,
  userId: 'u',
  parentRunId: null,
  data: {},
  version,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

describe('KnownRuns', () => {
  it('keeps the latest version of each run and forgets finished ones', () => {
    const known = new KnownRuns(10);
    known.remember(run('a', 1), false);
    known.remember(run('a', 2), false);
    expect(known.get('a')?.version).toBe(2);
    known.remember(run('a', 3), true);
    expect(known.get('a')).toBeUndefined();
  });

  it('pushes out the run least recently committed when full', () => {
    const known = new KnownRuns(2);
    known.remember(run('a'), false);
    known.remember(run('b'), false);
    known.remember(run('a', 2), false); // a is now the most recent
    known.remember(run('c'), false);
    expect(known.get('b')).toBeUndefined();
    expect(known.get('a')?.version).toBe(2);
    expect(known.get('c')).toBeDefined();
    expect(known.size).toBe(2);
  });
});
