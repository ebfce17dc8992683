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
}

/** Text no PostgreSQL text column can hold, or no UTF-8 can carry: what must be refused at the edge. */
const HOSTILE_TEXT = ['\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\u202e', ' ', ''];

/**
 * Request bodies of one operation, 3 in 5 valid and 2 in 5 mutated (`arbitraryOf`'s mutations). The
 * valid ones start from the operation's documented examples when it has some (as they are, or with
 * one of their fields regenerated within its schema), so constraints a JSON Schema cannot say (one of
 * two fields, an id that must exist) hold; the rest are generated from the schema alone.
 */
export function bodyArbitraryOf(schema: JsonSchemaNode, resolve: (ref: string) => JsonSchemaNode, examples: readonly unknown[]): fc.Arbitrary<unknown> {
  const generated = validOf(schema, resolve, 0);
  const valid = examples.length === 0 ? generated : fc.oneof({ weight: 2, arbitrary: fromExamples(schema, resolve, examples) }, { weight: 1, arbitrary: generated });
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: mutatedOf(schema, resolve, valid, 0) });
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
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: mutatedOf(schema, resolve, valid, depth) });
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

function mutatedOf(schema: JsonSchemaNode, resolve: (ref: string) => JsonSchemaNode, valid: fc.Arbitrary<unknown>, depth: number): fc.Arbitrary<unknown> {
  const target = schema.$ref !== undefined ? resolve(schema.$ref) : schema;
  const whole = fc.oneof(fc.constant(null), fc.constant([]), fc.constant('text'), fc.constant(42), fc.constantFrom(...HOSTILE_TEXT));
  if (target.properties === undefined || depth > 0) return whole;
  const names = Object.keys(target.properties);
  if (names.length === 0) return whole;
  const field = fc.constantFrom(...names);
  const replaced = (value: fc.Arbitrary<unknown>) =>
    fc.tuple(valid, field, value).map(([base, name, next]) => ({ ...(typeof base === 'object' && base !== null ? base : {}), [name]: next }));
  return fc.oneof(
    whole,
    // Hostile or oversized text in one field.
    replaced(fc.constantFrom(...HOSTILE_TEXT)),
    replaced(fc.string({ minLength: 1, maxLength: 8 }).map((s) => `${s}\u0000${s}`)),
    replaced(fc.constant('x'.repeat(70_000))),
    // The wrong type in one field.
    replaced(fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant({ nested: true }), fc.constant(['a']))),
    // A required field dropped.
    fc.tuple(valid, fc.constantFrom(...(target.required !== undefined && target.required.length > 0 ? target.required : names))).map(([base, name]) => {
      const copy = { ...(typeof base === 'object' && base !== null ? (base as Record<string, unknown>) : {}) };
      delete copy[name];
      return copy;
    }),
    // An unknown field.
    fc.tuple(valid, fc.string({ minLength: 1, maxLength: 12 })).map(([base, name]) => ({ ...(typeof base === 'object' && base !== null ? base : {}), [`x_${name}`]: 'unexpected' })),
  );
}

function mergeAll(parts: readonly JsonSchemaNode[], resolve: (ref: string) => JsonSchemaNode): JsonSchemaNode {
  const resolved = parts.map((part) => (part.$ref !== undefined ? resolve(part.$ref) : part));
  return {
    type: 'object',
    properties: Object.assign({}, ...resolved.map((part) => part.properties ?? {})) as Record<string, JsonSchemaNode>,
    required: resolved.flatMap((part) => part.required ?? []),
  };
}
