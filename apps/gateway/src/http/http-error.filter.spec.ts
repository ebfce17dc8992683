import { NotFoundException } from '@nestjs/common';
import { JetStreamApiError } from '@nats-io/jetstream';
import { TimeoutError } from '@nats-io/nats-core';
import { OpenPawError } from '@openpaw/contracts';
import { InvalidTokenError } from '../auth/tokens.js';
import { filterResponse } from './testing/filter-response.js';

class UnlistedError extends OpenPawError {
  readonly code = 'something_internal';
}

describe('HttpErrorFilter', () => {
  it('answers an OpenPaw error by its code: invalid_token is 401 unauthorized with its message', () => {
    expect(filterResponse(new InvalidTokenError('token expired'))).toEqual({ status: 401, body: { error: 'unauthorized', message: 'token expired' } });
  });

  it('answers an OpenPaw error whose code is not listed as an internal error that reveals nothing', () => {
    expect(filterResponse(new UnlistedError('secret detail'))).toEqual({ status: 500, body: { error: 'internal_error', message: 'internal error' } });
  });

  it('answers JetStream not answering (a timeout, a leader election) with 503 and Retry-After, not a 500', () => {
    const unavailable = { status: 503, body: { error: 'service_unavailable', message: expect.stringContaining('retry with the same Idempotency-Key') as unknown }, headers: { 'Retry-After': '2' } };
    expect(filterResponse(new TimeoutError())).toEqual(unavailable);
    expect(filterResponse(new JetStreamApiError({ code: 503, err_code: 10008, description: 'JetStream system temporarily unavailable' }))).toEqual(unavailable);
  });

  it('passes a handler’s JSON body through', () => {
    expect(filterResponse(new NotFoundException({ error: 'not_found', message: 'no such run' }))).toEqual({ status: 404, body: { error: 'not_found', message: 'no such run' } });
  });
});
