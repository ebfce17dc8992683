import { createHash } from 'node:crypto';
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

  it('are the ids every earlier version derived (each part fed to sha256 as length, colon, part)', () => {
    // Ids are stored and published (run ids, command ids, Nats-Msg-Id): a change of derivation would
    // start a second run for a re-submitted key and defeat de-duplication across an upgrade.
    const earlier = (...parts: string[]): string => {
      const sha = createHash('sha256');
      for (const part of parts) sha.update(String(part.length)).update(':').update(part);
      const bytes = sha.digest().subarray(0, 16);
      bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
      bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
      const hex = bytes.toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    };
    expect(deterministicUuid('run', 'retrieve_or_generate', 'k')).toBe('fb47d6bb-1b07-8d9f-adc6-fe605c6065b7');
    const samples: string[][] = [[], [''], ['', ''], ['é', 'ü'], ['x\uD83D', '\uDE00y'], ['😀', '12:3', ':'], ['a'.repeat(1000), 'b']];
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 200; i += 1) {
      samples.push(Array.from({ length: 1 + Math.floor(random() * 4) }, () => String.fromCharCode(...Array.from({ length: Math.floor(random() * 12) }, () => Math.floor(random() * 0xffff)))));
    }
    for (const parts of samples) expect(deterministicUuid(...parts)).toBe(earlier(...parts));
  });

  it('derive run ids per workflow type', () => {
    expect(runIdFor('a', 'k')).not.toBe(runIdFor('b', 'k'));
  });
});
