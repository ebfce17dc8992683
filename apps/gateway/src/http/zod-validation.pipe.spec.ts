import { BadRequestException } from '@nestjs/common';
import { cancelRunBody, encodeCursor, listRunsQuery, runIdParams } from '../runs/runs.schemas.js';
import { ZodValidationPipe } from './zod-validation.pipe.js';

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return (error as BadRequestException).getResponse();
  }
  throw new Error('expected a 400');
}

describe('ZodValidationPipe', () => {
  it('passes the parsed value on', () => {
    const pipe = new ZodValidationPipe(listRunsQuery);
    expect(pipe.transform({ limit: '5', type: 'SolveWorkflow', view: 'full' }, { type: 'query' })).toEqual({ limit: 5, type: 'SolveWorkflow', view: 'full' });
    expect(pipe.transform({}, { type: 'query' })).toEqual({ limit: 20, view: 'summary' });
  });

  it('names the path parameter that is wrong', () => {
    const pipe = new ZodValidationPipe(runIdParams);
    expect(refusal(() => pipe.transform({ id: '123' }, { type: 'param' }))).toEqual({
      error: 'validation_failed',
      location: 'params',
      issues: [{ path: 'id', message: 'Invalid UUID' }],
    });
  });

  it('names every query field that is wrong', () => {
    const pipe = new ZodValidationPipe(listRunsQuery);
    const body = refusal(() => pipe.transform({ limit: '1000', state: ['A', 'B'] }, { type: 'query' })) as {
      issues: { path: string }[];
    };
    expect(body.issues.map((i) => i.path).sort()).toEqual(['limit', 'state']);
  });

  it('decodes cursors it issued and refuses others', () => {
    const pipe = new ZodValidationPipe(listRunsQuery);
    const cursor = { createdAt: new Date('2030-01-01T00:00:00.000Z'), runId: '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9' };
    expect(pipe.transform({ cursor: encodeCursor(cursor) }, { type: 'query' })).toEqual({ limit: 20, view: 'summary', cursor });
    expect(refusal(() => pipe.transform({ cursor: 'bogus' }, { type: 'query' }))).toMatchObject({
      issues: [{ path: 'cursor', message: 'not a cursor returned by this API' }],
    });
  });

  it('takes an empty body as an empty object, and names nested body fields', () => {
    const pipe = new ZodValidationPipe(cancelRunBody);
    expect(pipe.transform(undefined, { type: 'body' })).toEqual({});
    expect(pipe.transform({ reason: '  enough  ' }, { type: 'body' })).toEqual({ reason: 'enough' });
    expect(refusal(() => pipe.transform({ reason: 'x'.repeat(501) }, { type: 'body' }))).toMatchObject({
      location: 'body',
      issues: [{ path: 'reason' }],
    });
  });
});
