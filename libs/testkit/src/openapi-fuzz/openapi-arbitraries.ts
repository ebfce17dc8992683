import fc from 'fast-check';

/** The part of JSON Schema the gateway's generated OpenAPI uses. */
export interface JsonSchemaNode {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly items?: JsonSchemaNode;
  readonly properties?: Readonly<Record<string, JsonSchemaNode>>;
  readonly required?: readonly string[];
  readonly anyOf?: readonly JsonSchemaNode[];
  readonly oneOf?: readonly JsonSchemaNode[];
  readonly allOf?: readonly JsonSchemaNode[];
  /** OpenAPI 3.0's way of allowing null. */
  readonly nullable?: boolean;
  /** `false`: an object that refuses fields it does not name. */
  readonly additionalProperties?: boolean | JsonSchemaNode;
}

/** Text no PostgreSQL text column can hold, or no UTF-8 can carry: what must be refused at the edge. */
const HOSTILE_TEXT = ['\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\u202e', ' ', ''];

/**
 * A generated request body, and where a mutation broke it: `broke` is the top-level field (or `''`
 * for the body as a whole) whose value the body's schema certainly refuses, so the API's 400 must
 * name it. Bodies meant to be valid, and mutations the schema may still accept (a blank string where
 * it has no bounds, a number where it takes numbers), have none.
 */
export interface GeneratedBody {
  readonly value: unknown;
  readonly broke?: string;
}

/**
 * Request bodies of one operation, 3 in 5 valid and 2 in 5 mutated (`arbitraryOf`'s mutations). The
 * valid ones start from the operation's documented examples when it has some (as they are, or with
 * one of their fields regenerated within its schema), so constraints a JSON Schema cannot say (one of
 * two fields, an id that must exist) hold; the rest are generated from the schema alone.
 */
export function bodyArbitraryOf(schema: JsonSchemaNode, resolve: (ref: string) => JsonSchemaNode, examples: readonly unknown[]): fc.Arbitrary<GeneratedBody> {
  const generated = validOf(schema, resolve, 0);
  const valid = examples.length === 0 ? generated : fc.oneof({ weight: 2, arbitrary: fromExamples(schema, resolve, examples) }, { weight: 1, arbitrary: generated });
  return fc.oneof({ weight: 3, arbitrary: valid.map((value): GeneratedBody => ({ value })) }, { weight: 2, arbitrary: mutatedOf(schema, resolve, valid, 0) });
}

function fromExamples(schema: JsonSchemaNode, resolve: (ref: string) => JsonSchemaNode, examples: readonly unknown[]): fc.Arbitrary<unknown> {
  const properties = (schema.$ref !== undefined ? resolve(schema.$ref) : schema).properties ?? {};
  const regenerated = fc.constantFrom(...examples).chain((example) => {
    if (typeof example !== 'object' || example === null || Array.isArray(example)) return fc.constant(example);
    // Only a field the example has: adding one could break a constraint between fields.
    const names = Object.keys(example).filter((name) => name in properties);
    if (names.length === 0) return fc.constant(example);
    return fc
      .constantFrom(...names)
      .chain((name) => validOf(properties[name] ?? {}, resolve, 1).map((value) => ({ ...(example as Record<string, unknown>), [name]: value })));
  });
  return fc.oneof(fc.constantFrom(...examples), regenerated);
}

/**
 * Values of a JSON Schema (from the gateway's OpenAPI), mostly valid and sometimes mutated: a field
 * of the wrong type, a required field dropped, an unknown field, hostile text (NUL, lone surrogates),
 * strings past their bounds. `resolve` follows `$ref`s into the document's components.
 */
export function arbitraryOf(schema: JsonSchemaNode, resolve: (ref: string) => JsonSchemaNode, depth = 0): fc.Arbitrary<unknown> {
  const valid = validOf(schema, resolve, depth);
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: mutatedOf(schema, resolve, valid, depth).map((mutated) => mutated.value) });
}

function validOf(schema: JsonSchemaNode, resolve: (ref: string) => JsonSchemaNode, depth: number): fc.Arbitrary<unknown> {
  if (schema.$ref !== undefined) return validOf(resolve(schema.$ref), resolve, depth);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const options = schema.anyOf ?? schema.oneOf;
  if (options !== undefined && options.length > 0) return fc.oneof(...options.map((option) => validOf(option, resolve, depth)));
  if (schema.allOf !== undefined && schema.allOf.length > 0) return validOf(mergeAll(schema.allOf, resolve), resolve, depth);
  const types: readonly string[] | undefined = typeof schema.type === 'string' ? [schema.type] : schema.type;
  const type = types === undefined ? undefined : (types.find((t) => t !== 'null') ?? 'null');
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({ min: Math.ceil(schema.minimum ?? -1_000), max: Math.floor(schema.maximum ?? 1_000_000) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (depth > 3) return fc.constant([]);
      const items = schema.items?.$ref !== undefined ? resolve(schema.items.$ref) : (schema.items ?? {});
      const bounds = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) };
      // A list of choices from an enum (providers, sources) names each once.
      if (items.enum !== undefined && items.enum.length > 0) return fc.uniqueArray(fc.constantFrom(...items.enum), { ...bounds, maxLength: Math.min(bounds.maxLength, items.enum.length) });
      return fc.array(validOf(items, resolve, depth + 1), bounds);
    }
    case 'object':
    case undefined: {
      if (schema.properties === undefined) return type === 'object' ? fc.constant({}) : fc.jsonValue({ maxDepth: 1 });
      if (depth > 3) return fc.constant({});
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(schema.properties)) record[name] = validOf(property, resolve, depth + 1);
      return fc.record(record, { requiredKeys: (schema.required ?? []).filter((name) => name in record) });
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function stringOf(schema: JsonSchemaNode): fc.Arbitrary<string> {
  if (schema.pattern !== undefined) return fc.stringMatching(new RegExp(schema.pattern));
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'uri' || schema.format === 'url') return fc.webUrl();
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'date-time') return fc.date({ min: new Date(2000, 0, 1), max: new Date(2100, 0, 1), noInvalidDate: true }).map((d) => d.toISOString());
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40));
  // Words, or any graphemes (astral ones included); not blank, since free text is trimmed before its bounds apply.
  return fc.oneof(fc.lorem({ maxCount: 6 }), fc.string({ unit: 'grapheme', minLength, maxLength })).map((text) => {
    const visible = text.trim().length >= Math.max(minLength, 1) ? text : `${'x'.repeat(Math.max(minLength, 1))}${text}`;
    return prefixWithin(visible, Math.max(maxLength, 1));
  });
}

/** The longest prefix of whole code points within `maxUnits` UTF-16 units (a cut never splits a surrogate pair). */
function prefixWithin(text: string, maxUnits: number): string {
  let prefix = '';
  for (const codePoint of text) {
    if (prefix.length + codePoint.length > maxUnits) break;
    prefix += codePoint;
  }
  return prefix;
}

/**
 * Mutations of a schema's valid values, each with the field it broke where the schema certainly
 * refuses the result (`GeneratedBody.broke`): the whole value replaced (`''`); one field given
 * hostile or oversized text or the wrong type; a required field dropped; an unknown field added to
 * an object that allows none.
 */
function mutatedOf(schema: JsonSchemaNode, resolve: (ref: string) => JsonSchemaNode, valid: fc.Arbitrary<unknown>, depth: number): fc.Arbitrary<GeneratedBody> {
  const target = schema.$ref !== undefined ? resolve(schema.$ref) : schema;
  const whole = fc
    .oneof(fc.constant(null), fc.constant([]), fc.constant('text'), fc.constant(42), fc.constantFrom(...HOSTILE_TEXT))
    .map((value): GeneratedBody => (refuses(target, value, resolve) ? { value, broke: '' } : { value }));
  if (target.properties === undefined || depth > 0) return whole;
  const properties = target.properties;
  const names = Object.keys(properties);
  if (names.length === 0) return whole;
  const objectOf = (base: unknown): Record<string, unknown> => (typeof base === 'object' && base !== null && !Array.isArray(base) ? (base as Record<string, unknown>) : {});
  const replaced = (value: fc.Arbitrary<unknown>) =>
    fc.tuple(valid, fc.constantFrom(...names), value).map(([base, name, next]): GeneratedBody => {
      const body = { ...objectOf(base), [name]: next };
      return refuses(properties[name] ?? {}, next, resolve) ? { value: body, broke: name } : { value: body };
    });
  const required = new Set(target.required ?? []);
  return fc.oneof(
    whole,
    // Hostile or oversized text in one field.
    replaced(fc.constantFrom(...HOSTILE_TEXT)),
    replaced(fc.string({ minLength: 1, maxLength: 8 }).map((s) => `${s}\u0000${s}`)),
    replaced(fc.constant('x'.repeat(70_000))),
    // The wrong type in one field.
    replaced(fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant({ nested: true }), fc.constant(['a']))),
    // A required field dropped.
    fc.tuple(valid, fc.constantFrom(...(required.size > 0 ? required : names))).map(([base, name]): GeneratedBody => {
      const copy = { ...objectOf(base) };
      delete copy[name];
      return required.has(name) ? { value: copy, broke: name } : { value: copy };
    }),
    // An unknown field.
    fc.tuple(valid, fc.string({ minLength: 1, maxLength: 12 })).map(([base, name]): GeneratedBody => {
      const body = { ...objectOf(base), [`x_${name}`]: 'unexpected' };
      return target.additionalProperties === false ? { value: body, broke: `x_${name}` } : { value: body };
    }),
  );
}

/** JSON's type of a value, as a schema's `type` names it. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Text no string field takes (the shared refinement refuses it in free text; no pattern, format or enum has it). */
const hostile = (text: string): boolean => text.includes('\u0000') || Buffer.from(text, 'utf8').toString('utf8') !== text;

/**
 * Whether `schema` certainly refuses `value`: the wrong JSON type, a value outside its enum or
 * constant, text no string field takes, or a string or number past the bounds it states. Where it
 * cannot tell (no type stated, a pattern or format, nested objects and lists), it answers no: a
 * mutation it cannot vouch for is sent, but the name in its refusal is not checked.
 */
export function refuses(schemaIn: JsonSchemaNode, value: unknown, resolve: (ref: string) => JsonSchemaNode): boolean {
  const schema = schemaIn.$ref !== undefined ? resolve(schemaIn.$ref) : schemaIn;
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches !== undefined && branches.length > 0) return branches.every((branch) => refuses(branch, value, resolve));
  if (schema.allOf !== undefined && schema.allOf.length > 0) return schema.allOf.some((part) => refuses(part, value, resolve));
  if (value === null && schema.nullable === true) return false;
  if (schema.const !== undefined) return jsonTypeOf(value) !== 'object' && jsonTypeOf(value) !== 'array' && value !== schema.const;
  if (schema.enum !== undefined && schema.enum.length > 0) return !schema.enum.includes(value);
  const types = schema.type === undefined ? [] : typeof schema.type === 'string' ? [schema.type] : schema.type;
  if (types.length === 0) return false;
  const kind = jsonTypeOf(value);
  if (!types.some((type) => type === kind || (type === 'number' && kind === 'integer'))) return true;
  if (typeof value === 'string') {
    // Bounds as both counts agree: code points for the upper one, UTF-16 units for the lower one.
    return hostile(value) || (schema.maxLength !== undefined && [...value].length > schema.maxLength) || (schema.minLength !== undefined && value.length < schema.minLength);
  }
  if (typeof value === 'number') return (schema.minimum !== undefined && value < schema.minimum) || (schema.maximum !== undefined && value > schema.maximum);
  return false;
}

function mergeAll(parts: readonly JsonSchemaNode[], resolve: (ref: string) => JsonSchemaNode): JsonSchemaNode {
  const resolved = parts.map((part) => (part.$ref !== undefined ? resolve(part.$ref) : part));
  return {
    type: 'object',
    properties: Object.assign({}, ...resolved.map((part) => part.properties ?? {})) as Record<string, JsonSchemaNode>,
    required: resolved.flatMap((part) => part.required ?? []),
  };
}
