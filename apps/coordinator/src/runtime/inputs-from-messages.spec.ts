import { deterministicUuid, type Envelope, RetrievalHit, RetrievalHitV1 } from '@openpaw/contracts';
import { inputFromMessage } from './inputs-from-messages.js';

const runId = deterministicUuid('inputs-from-messages-spec', 'run');
const envelope = (type: string): Envelope =>
  ({
    specversion: '1.0',
    id: deterministicUuid('inputs-from-messages-spec', type),
    type,
    source: '/openpaw/retrieval',
    time: new Date(0).toISOString(),
    correlationid: runId,
    datacontenttype: 'application/json',
    data: {},
  }) as unknown as Envelope;

describe('inputFromMessage', () => {
  it('gives a run the current version of an event', () => {
    expect(inputFromMessage(envelope(RetrievalHit.subject))).toMatchObject({ ok: true, input: { kind: 'input', meta: { runId }, input: { kind: 'event' } } });
  });

  it('skips a superseded version, produced beside its successor for outside subscribers only', () => {
    expect(inputFromMessage(envelope(RetrievalHitV1.subject))).toEqual({ ok: true, input: undefined });
  });
});
