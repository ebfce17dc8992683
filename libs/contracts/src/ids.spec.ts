import { z } from 'zod';
import { deterministicUuid, runIdFor } from './ids.js';

describe('deterministic ids', () => {
  it('are stable for the same parts and valid UUIDs', () => {
    const a = deterministicUuid('run', 'x');
    expect(deterministicUuid('run', 'x')).toBe(a);
    expect(z.uuid().safeParse(a).success).toBe(true);
  });

  it('differ when the split between parts differs', () => {
    expect(deterministicUuid('ab', 'c')).not.toBe(deterministicUuid('a', 'bc'));
  });

  it('derive run ids per workflow type', () => {
    expect(runIdFor('a', 'k')).not.toBe(runIdFor('b', 'k'));
  });
});
