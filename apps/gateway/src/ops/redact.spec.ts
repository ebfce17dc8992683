import { redactedPayloadOf, redactPayload } from './redact.js';

describe("a dead letter's payload for operators", () => {
  it('keeps the shape, ids, types, times, numbers and booleans; replaces every other string by its length', () => {
    expect(
      redactPayload({
        id: 'm-1',
        type: 'openpaw.cmd.solve.GenerateSolution.v1',
        correlationid: 'run-1',
        time: '2030-01-01T00:00:00Z',
        data: { runId: 'run-1', problemText: 'Jane Doe asks 2x = 4', createdAt: '2030-01-01T00:00:00Z', tries: 2, sensitive: true, tags: ['algebra', 'exam'], apiKey: 'sk-123' },
      }),
    ).toEqual({
      id: 'm-1',
      type: 'openpaw.cmd.solve.GenerateSolution.v1',
      correlationid: 'run-1',
      time: '2030-01-01T00:00:00Z',
      data: { runId: 'run-1', problemText: '[redacted: 20 chars]', createdAt: '2030-01-01T00:00:00Z', tries: 2, sensitive: true, tags: ['[redacted: 7 chars]', '[redacted: 4 chars]'], apiKey: '[redacted: 6 chars]' },
    });
  });

  it('counts bytes that are not JSON instead of showing them', () => {
    expect(redactedPayloadOf(new TextEncoder().encode('secret words'))).toBe('[not JSON: 12 bytes]');
  });
});
