import { z } from 'zod';
import { validatedExamples } from './openapi.js';

describe('validatedExamples (request bodies documented in the OpenAPI)', () => {
  const body = z.strictObject({ text: z.string().min(1).optional(), url: z.url().optional() }).refine((b) => (b.text === undefined) !== (b.url === undefined), { path: ['text'], message: 'give text or url' });

  it('documents examples the route accepts, as OpenAPI example objects', () => {
    expect(validatedExamples(body, { text: { text: 'x² = 4' }, url: { url: 'https://example.org/a.png' } })).toEqual({
      text: { value: { text: 'x² = 4' } },
      url: { value: { url: 'https://example.org/a.png' } },
    });
  });

  it('refuses an example its own schema refuses (refinements included), naming the example and the field', () => {
    expect(() => validatedExamples(body, { both: { text: 'a', url: 'https://example.org' } })).toThrow('the OpenAPI example "both" is refused by its own schema (text: give text or url)');
    expect(() => validatedExamples(body, { extra: { text: 'a', note: 1 } })).toThrow(/"extra".*\(body\)/);
  });
});
