import type { Envelope } from '@openpaw/contracts';
import { ValidatedEnvelopes } from './validated-envelopes.js';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);
const envelope = (id: string): Envelope<unknown> =>
  ({ specversion: '1.0', id, source: '/test', type: 'openpaw.evt.test', time: new Date(0).toISOString(), datacontenttype: 'application/json', dataschema: 'x', data: { id }, correlationid: 'c' });

describe('ValidatedEnvelopes', () => {
  it('hands a validated envelope to the next reader of the same bytes once', () => {
    const memo = new ValidatedEnvelopes();
    const first = envelope('m1');
    memo.remember('openpaw.evt.test', 'm1', bytesOf('{"id":"m1"}'), first);
    expect(memo.take('openpaw.evt.test', 'm1', bytesOf('{"id":"m1"}'))).toBe(first);
    expect(memo.take('openpaw.evt.test', 'm1', bytesOf('{"id":"m1"}'))).toBeUndefined();
  });

  it('refuses other bytes or another subject under the same id (they are validated as usual)', () => {
    const memo = new ValidatedEnvelopes();
    memo.remember('openpaw.evt.test', 'm1', bytesOf('{"id":"m1"}'), envelope('m1'));
    expect(memo.take('openpaw.evt.test', 'm1', bytesOf('{"id":"m2"}'))).toBeUndefined();
    memo.remember('openpaw.evt.test', 'm1', bytesOf('{"id":"m1"}'), envelope('m1'));
    expect(memo.take('openpaw.evt.other', 'm1', bytesOf('{"id":"m1"}'))).toBeUndefined();
    expect(memo.size).toBe(0);
  });

  it('keeps its own copy of the bytes (a reused receive buffer cannot pass for the message)', () => {
    const memo = new ValidatedEnvelopes();
    const buffer = bytesOf('{"id":"m1"}');
    memo.remember('openpaw.evt.test', 'm1', buffer, envelope('m1'));
    buffer.fill(32);
    expect(memo.take('openpaw.evt.test', 'm1', buffer)).toBeUndefined();
  });

  it('ignores messages without an id and forgets the oldest beyond its capacity', () => {
    const memo = new ValidatedEnvelopes(2);
    memo.remember('s', undefined, bytesOf('a'), envelope('a'));
    expect(memo.size).toBe(0);
    for (const id of ['a', 'b', 'c']) memo.remember('s', id, bytesOf(id), envelope(id));
    expect(memo.size).toBe(2);
    expect(memo.take('s', 'a', bytesOf('a'))).toBeUndefined();
    expect(memo.take('s', 'c', bytesOf('c'))?.id).toBe('c');
  });
});
