import { createEnvelope, jsonOf, parseEnvelope, parseEnvelopeJson } from './envelope.js';
import { CancelRun, StartRun } from './messages/workflow.js';

const RUN_ID = '0b6f5c1e-2a3d-4c5e-8f90-1a2b3c4d5e6f';

describe('reading an envelope', () => {
  const envelope = createEnvelope(CancelRun, { runId: RUN_ID, userId: 'u1', reason: 'changed my mind' }, { source: 'gateway', correlationId: RUN_ID });
  const text = JSON.stringify(envelope);

  it('reads the same envelope from bytes, from text and from JSON read once by its receiver', () => {
    const fromBytes = parseEnvelope(CancelRun, new TextEncoder().encode(text));
    const fromText = parseEnvelope(CancelRun, text);
    const json = jsonOf(text);
    if (!json.ok) throw new Error(json.reason);
    const fromJson = parseEnvelopeJson(CancelRun, json.value);
    expect(fromBytes).toEqual({ ok: true, envelope });
    expect(fromText).toEqual(fromBytes);
    expect(fromJson).toEqual(fromBytes);
  });

  it('names what is wrong: malformed JSON, another message type, invalid data', () => {
    expect(parseEnvelope(CancelRun, '{"specversion":')).toEqual({ ok: false, reason: expect.stringMatching(/^malformed JSON: /) as unknown });
    expect(jsonOf(new Uint8Array([0x7b]))).toEqual({ ok: false, reason: expect.stringMatching(/^malformed JSON: /) as unknown });
    expect(parseEnvelopeJson(StartRun, JSON.parse(text))).toEqual({ ok: false, reason: `type ${CancelRun.subject} is not ${StartRun.subject}` });
    const badData = { ...envelope, data: { runId: 'not a uuid', userId: 'u1' } };
    expect(parseEnvelopeJson(CancelRun, badData)).toEqual({ ok: false, reason: expect.stringContaining(`invalid data for ${CancelRun.subject}`) as unknown });
    expect(parseEnvelopeJson(CancelRun, null)).toEqual({ ok: false, reason: expect.stringContaining('invalid envelope') as unknown });
  });
});
