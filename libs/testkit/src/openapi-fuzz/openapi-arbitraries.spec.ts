import fc from 'fast-check';
import { bodyArbitraryOf, type GeneratedBody, type JsonSchemaNode } from './openapi-arbitraries.js';

const noRefs = (): JsonSchemaNode => ({});

/** `POST /problems`' JSON body as the OpenAPI says it: nothing required, yet exactly one of `text` or `url` is accepted. */
const problemBody: JsonSchemaNode = {
  type: 'object',
  properties: {
    text: { type: 'string', minLength: 1, maxLength: 50 },
    url: { type: 'string', format: 'uri', maxLength: 2048 },
    intent: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,31}$' },
    providers: { type: 'array', minItems: 1, items: { type: 'string', enum: ['openai', 'anthropic', 'local'] } },
  },
};
const examples = [{ text: 'Solve for x: 2x + 3 = 11.' }, { url: 'https://example.org/q.png', intent: 'solve' }];

/** No lone surrogate (UTF-8 round-trips it unchanged). */
const wellFormed = (text: string): boolean => Buffer.from(text, 'utf8').toString('utf8') === text;

/** What the gateway's refinements would say of a body: accepted, or why not. */
function accepted(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { text, url, intent, providers, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return false;
  if ((text === undefined) === (url === undefined)) return false;
  if (text !== undefined && (typeof text !== 'string' || text.trim() === '' || text.length > 50 || text.includes('\u0000') || !wellFormed(text))) return false;
  if (url !== undefined && (typeof url !== 'string' || !/^https?:\/\//.test(url))) return false;
  if (intent !== undefined && (typeof intent !== 'string' || !/^[a-z][a-z0-9_]{0,31}$/.test(intent))) return false;
  if (providers !== undefined && (!Array.isArray(providers) || providers.length === 0 || new Set(providers).size !== providers.length)) return false;
  return true;
}

describe('bodyArbitraryOf', () => {
  const sample = (withExamples: readonly unknown[]) => fc.sample(bodyArbitraryOf(problemBody, noRefs, withExamples), { numRuns: 600, seed: 26 }).map((body) => body.value);

  it('starts a clear share of bodies from the documented examples, so a constraint between fields holds', () => {
    const fromSchemaAlone = sample([]).filter(accepted).length;
    const withExamples = sample(examples).filter(accepted).length;
    // Valid and mutated are 3 : 2; two in three valid bodies start from an example.
    expect(withExamples).toBeGreaterThan(600 * 0.35);
    expect(withExamples).toBeGreaterThan(fromSchemaAlone * 1.5);
  });

  it('keeps a malformed share: hostile text, wrong types, unknown fields, whole bodies that are no object', () => {
    const bodies = sample(examples);
    const refused = bodies.filter((body) => !accepted(body));
    expect(refused.length).toBeGreaterThan(600 * 0.3);
    expect(refused.some((body) => JSON.stringify(body).includes('\\u0000'))).toBe(true);
    expect(refused.some((body) => typeof body !== 'object' || body === null || Array.isArray(body))).toBe(true);
    expect(refused.some((body) => typeof body === 'object' && body !== null && Object.keys(body).some((name) => name.startsWith('x_')))).toBe(true);
  });

  it('generates strings matching a pattern, text that is not blank and splits no surrogate pair, and enum lists naming each choice once', () => {
    const generated = fc.sample(bodyArbitraryOf(problemBody, noRefs, []), { numRuns: 2000, seed: 7 }).map((body) => body.value);
    const valid = generated.filter((body): body is Record<string, unknown> => typeof body === 'object' && body !== null && !Array.isArray(body) && !Object.keys(body).some((name) => name.startsWith('x_')));
    const intents = valid.map((body) => body['intent']).filter((intent): intent is string => typeof intent === 'string' && intent !== '' && !intent.includes('\u0000'));
    expect(intents.filter((intent) => /^[a-z][a-z0-9_]{0,31}$/.test(intent)).length).toBeGreaterThan(intents.length * 0.5);
    const texts = valid.map((body) => body['text']).filter((text): text is string => typeof text === 'string' && text.length <= 50 && text.length > 1);
    expect(texts.filter((text) => text.trim() !== '' && wellFormed(text)).length).toBeGreaterThan(texts.length * 0.7);
    const lists = valid.map((body) => body['providers']).filter((list): list is string[] => Array.isArray(list) && list.every((item) => typeof item === 'string'));
    expect(lists.length).toBeGreaterThan(0);
    expect(lists.filter((list) => new Set(list).size !== list.length)).toEqual([]);
  });

  /** A strict body (`additionalProperties: false`), as `PUT /research/webhook`-like schemas are. */
  const strictBody: JsonSchemaNode = {
    type: 'object',
    additionalProperties: false,
    required: ['query'],
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 50 },
      limit: { type: 'integer', minimum: 1, maximum: 20 },
      mode: { type: 'string', enum: ['fast', 'deep'] },
      note: { type: 'string', nullable: true },
    },
  };
  const strictExample = { query: 'photosynthesis', limit: 5, mode: 'fast' };

  /** The fields a validator of `strictBody` refuses (`''`: the body as a whole), by hand. */
  function refusedFieldsOf(body: unknown): Set<string> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return new Set(['']);
    const record = body as Record<string, unknown>;
    const badText = (text: unknown, min: number, max: number): boolean =>
      typeof text !== 'string' || text.includes('\u0000') || !wellFormed(text) || text.length < min || text.length > max;
    const refused = new Set(Object.keys(record).filter((name) => !['query', 'limit', 'mode', 'note'].includes(name)));
    if (!('query' in record) || badText(record['query'], 1, 50)) refused.add('query');
    const limit = record['limit'];
    if ('limit' in record && !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= 20)) refused.add('limit');
    if ('mode' in record && !['fast', 'deep'].includes(record['mode'] as string)) refused.add('mode');
    if ('note' in record && record['note'] !== null && badText(record['note'], 0, Number.POSITIVE_INFINITY)) refused.add('note');
    return refused;
  }

  it('records the field each mutation broke, only where the schema certainly refuses it: the whole body, a field\'s type, text or bounds, a required field dropped, an unknown field', () => {
    const bodies: GeneratedBody[] = fc.sample(bodyArbitraryOf(strictBody, noRefs, [strictExample]), { numRuns: 1500, seed: 43 });
    const recorded = bodies.filter((body): body is GeneratedBody & { broke: string } => body.broke !== undefined);
    // Sound: what a mutation names as broken, a validator refuses.
    expect(recorded.filter((body) => !refusedFieldsOf(body.value).has(body.broke)).map((body) => ({ broke: body.broke, value: JSON.stringify(body.value).slice(0, 80) }))).toEqual([]);
    // And most refused bodies say which field: every kind of mutation records its field.
    const kinds = new Set(recorded.map((body) => (body.broke.startsWith('x_') ? 'unknown field' : body.broke)));
    expect([...kinds].sort()).toEqual(['', 'limit', 'mode', 'note', 'query', 'unknown field']);
    const refused = bodies.filter((body) => refusedFieldsOf(body.value).size > 0);
    expect(recorded.length).toBeGreaterThan(refused.length * 0.6);
    // Bodies meant to be valid record nothing.
    expect(bodies.filter((body) => body.broke === undefined && refusedFieldsOf(body.value).size === 0).length).toBeGreaterThan(1500 * 0.4);
  });
});
