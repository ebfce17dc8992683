import { JetStreamApiError } from '@nats-io/jetstream';
import { ConnectionError, NoRespondersError, PermissionViolationError, RequestError, TimeoutError } from '@nats-io/nats-core';
import { isJetStreamUnavailable, whenJetStreamAnswers } from './jetstream-when-ready.js';
import { PublishRefusedError, PublishTimeoutError } from './pub-acks.js';

const apiError = (code: number, status: number): JetStreamApiError => new JetStreamApiError({ err_code: code, code: status, description: `api ${code}` });
const notEnabled = Object.assign(new Error('jetstream is not enabled'), { name: 'JetStreamNotEnabled' });

describe('isJetStreamUnavailable: what is waited for at start', () => {
  it.each([
    ['a request timeout', true, new TimeoutError()],
    ['no responders (JetStream not up yet)', true, new NoRespondersError('$JS.API.INFO')],
    ['a request error caused by no responders', true, new RequestError('no responders', { cause: new NoRespondersError('$JS.API.INFO') })],
    ['"jetstream is not enabled" (what no responders becomes on the JetStream API)', true, notEnabled],
    ['the connection being re-established', true, new ConnectionError('connection refused')],
    ['JetStream temporarily unavailable (10008)', true, apiError(10008, 503)],
    ['a publish whose PubAck did not come', true, new PublishTimeoutError('openpaw.cmd.x: no PubAck')],
    ['a publish no stream took now (503 no responders: a leader being elected)', true, new PublishRefusedError('openpaw.cmd.x: no stream', true)],
    ['a publish refused for good (a PubAck error that is not 503)', false, new PublishRefusedError('openpaw.cmd.x: refused (400/10060)', false)],
    ['stream not found (10059)', false, apiError(10059, 404)],
    ['a refused configuration (400)', false, apiError(10052, 400)],
    ['a permissions violation', false, new PermissionViolationError('permissions violation', 'publish', '$JS.API.STREAM.CREATE.X')],
    ['any other error', false, new Error('boom')],
    ['not an error', false, 'timeout'],
  ])('%s → waited for: %s', (_what, expected, error) => {
    expect(isJetStreamUnavailable(error)).toBe(expected);
  });
});

describe('whenJetStreamAnswers', () => {
  it('retries while unavailable and returns the first answer', async () => {
    let calls = 0;
    const retries: number[] = [];
    const answer = await whenJetStreamAnswers(
      'test',
      () => {
        calls += 1;
        return calls < 3 ? Promise.reject(new TimeoutError()) : Promise.resolve('answered');
      },
      { onRetry: (attempt, _error, delayMs) => retries.push(attempt, delayMs) },
    );
    expect(answer).toBe('answered');
    expect(retries).toEqual([1, 250, 2, 500]);
  });

  it('throws a refusal at once, and stops waiting when aborted', async () => {
    await expect(whenJetStreamAnswers('test', () => Promise.reject(apiError(10059, 404)))).rejects.toThrow('api 10059');
    const abort = new AbortController();
    const waiting = whenJetStreamAnswers('test', () => Promise.reject(new TimeoutError()), { signal: abort.signal, onRetry: () => abort.abort() });
    await expect(waiting).rejects.toBeInstanceOf(TimeoutError);
  });
});
