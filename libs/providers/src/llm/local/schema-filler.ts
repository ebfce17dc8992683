import { createHash } from 'node:crypto';
import type { JsonSchema } from '../port.js';
import type { Category } from '@openpaw/maths';
import type { MathSolution, SolutionStep } from './math-solver.js';
import { type Fact, TextFacts } from './text-facts.js';

/**
 * Fills a JSON Schema (as produced by `z.toJSONSchema`) from the prompt's content, the way the local
 * model answers structured requests. It walks the schema (objects, arrays, strings, numbers,
 * booleans, enums, const, anyOf/oneOf, local $refs) and chooses each value by the field's name:
 *
 * - question / prompt / stem → a cloze question over one sentence of the content;
 * - options / choices → that sentence's key term plus other key terms as distractors;
 * - answer / correct… → the key term (or its index, for integers);
 * - explanation / rationale / evidence / source / back / definition → the sentence itself;
 * - term / front / keyword / concept → the key term;
 * - title / name / topic → the top key terms; summary / description / text → the key sentences;
 * - tags / keywords (string arrays) → the top key terms.
 *
 * Every item of an array of objects draws on the next sentence, so a quiz gets one question per
 * sentence. A schema shaped like a worked solution (`steps` + `final_answer` [+ `can_solve`]) is
 * filled from the math solver. It cannot satisfy `pattern`, custom refinements, or fields whose
 * meaning it cannot tell from their name (they get a content sentence, the minimum number, false);
 * the resilient client then reports the validation failure as a StructuredOutputError.
 */
export function fillSchema(schema: JsonSchema, content: string, solve: () => MathSolution): unknown {
  return new SchemaFiller(schema, new TextFacts(content), solve).fill();
}

/** Whether `fillSchema` would ask the math solver: the schema is shaped like a worked solution. */
export function asksForSolution(schema: JsonSchema): boolean {
  return new SchemaFiller(schema, new TextFacts(''), () => {
    throw new Error('asksForSolution solves nothing');
  }).solutionShaped();
}

interface Scope {
  readonly fact: Fact | undefined;
  /** How many options an options array in this object has, so an index field matches it. */
  readonly optionCount: number;
  readonly item: boolean;
}

type Schema = Record<string, unknown>;

const NO_CONTENT = 'The local model found no source text in the prompt to draw this from.';
const MAX_DEPTH = 12;

class SchemaFiller {
  private nextFact = 0;
  private readonly usedAnswers = new Set<string>();
  private solution: MathSolution | undefined;

  constructor(
    private readonly root: JsonSchema,
    private readonly facts: TextFacts,
    private readonly solve: () => MathSolution,
  ) {}

  solutionShaped(): boolean {
    return isSolutionShaped(this.properties(this.resolve(this.root)));
  }

  fill(): unknown {
    const root = this.resolve(this.root);
    if (this.solutionShaped()) {
      this.solution = this.solve();
      return this.solutionObject(root);
    }
    return this.value(root, '', this.scopeFor(root, this.facts.fact(0), false), 0);
  }

  // ---- generic walk ----

  private value(schemaIn: unknown, name: string, scope: Scope, depth: number): unknown {
    const schema = this.resolve(schemaIn);
    if ('const' in schema) return schema['const'];
    if (Array.isArray(schema['enum'])) return pickEnum(schema['enum'], name, this.facts);
    const branch = this.branch(schema);
    if (branch !== undefined) return this.value(branch, name, scope, depth);
    const type = typeOf(schema);
    if (depth > MAX_DEPTH) return type === 'array' ? [] : type === 'object' ? {} : allowsNull(schema) ? null : this.scalar(type, schema, name, scope);
    switch (type) {
      case 'object':
        return this.object(schema, scope, depth);
      case 'array':
        return this.array(schema, name, scope, depth);
      default:
        return this.scalar(type, schema, name, scope);
    }
  }

  private object(schema: Schema, scope: Scope, depth: number): Record<string, unknown> {
    const inner = this.scopeFor(schema, scope.fact, scope.item);
    const out: Record<string, unknown> = {};
    for (const [key, propSchema] of Object.entries(this.properties(schema))) {
      out[key] = this.value(propSchema, key, inner, depth + 1);
    }
    return out;
  }

  private array(schema: Schema, name: string, scope: Scope, depth: number): unknown[] {
    const items = this.resolve(schema['items'] ?? {});
    const itemType = typeOf(this.branch(items) ?? items);
    const key = normalise(name);
    if (itemType === 'string' && /option|choice|alternative|answers$/.test(key) && scope.fact !== undefined) {
      return this.facts.options(scope.fact, clampCount(scope.optionCount, schema)).options;
    }
    if (itemType === 'string' && /tag|keyword|term|topic|concept|label/.test(key)) {
      const terms = this.facts.terms.slice(0, clampCount(Math.min(5, Math.max(1, this.facts.terms.length)), schema));
      return padTo(terms, clampCount(terms.length, schema), (i) => `term ${i + 1}`);
    }
    const count = clampCount(this.requestedCount(name) ?? Math.min(5, Math.max(1, this.facts.sentences.length)), schema);
    const out: unknown[] = [];
    for (let i = 0; i < count; i++) {
      const fact = this.facts.fact(this.nextFact++, this.usedAnswers);
      if (fact !== undefined) this.usedAnswers.add(fact.answer.toLowerCase());
      out.push(this.value(items, singular(name), this.scopeFor(items, fact, true), depth + 1));
    }
    return out;
  }

  private scalar(type: string, schema: Schema, name: string, scope: Scope): unknown {
    switch (type) {
      case 'string':
        return fitLength(this.string(schema, name, scope), schema, this.facts);
      case 'integer':
      case 'number':
        return this.number(type, schema, name, scope);
      case 'boolean':
        return this.solution !== undefined && /can_?solve|solvable|solved/.test(normalise(name)) ? this.solution.canSolve : false;
      case 'null':
        return null;
      default:
        return this.string(schema, name, scope);
    }
  }

  private string(schema: Schema, name: string, scope: Scope): string {
    const format = schema['format'];
    if (format === 'date-time') return new Date(0).toISOString();
    if (format === 'date') return '1970-01-01';
    if (format === 'email') return 'local-model@example.invalid';
    if (format === 'uri' || format === 'url') return 'https://example.invalid/local-model';
    if (format === 'uuid') return deterministicUuid(`${name}:${scope.fact?.sentence ?? ''}`);
    const key = normalise(name);
    const fact = scope.fact;
    if (/(^|_)id$/.test(key)) return `${key}-${this.nextFact}`;
    if (/^model/.test(key)) return 'local/deterministic';
    if (/^lang/.test(key)) return 'en';
    if (fact === undefined) return /title|name|heading|topic|subject/.test(key) ? this.facts.title() : NO_CONTENT;
    if (/question|prompt|stem|query/.test(key)) return `Which term completes the sentence: "${fact.cloze}"?`;
    if (/explanation|rationale|reason|justification|evidence|source|quote|citation|context|back|definition/.test(key)) return fact.sentence;
    if (/front|term|keyword|concept|word/.test(key)) return fact.answer;
    if (/answer|correct|solution|key/.test(key)) return fact.answer;
    if (/title|name|heading|topic|label|subject/.test(key)) return scope.item ? capitalise(fact.answer) : this.facts.title();
    if (/summary|overview|abstract|synthesis|conclusion/.test(key)) return scope.item ? fact.sentence : this.facts.summary();
    if (/description|content|text|body|detail|note|report/.test(key)) return scope.item ? fact.sentence : this.facts.summary(5);
    return fact.sentence;
  }

  private number(type: string, schema: Schema, name: string, scope: Scope): number {
    const key = normalise(name);
    const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : typeof schema['exclusiveMinimum'] === 'number' ? schema['exclusiveMinimum'] + (type === 'integer' ? 1 : 1e-6) : undefined;
    const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : typeof schema['exclusiveMaximum'] === 'number' ? schema['exclusiveMaximum'] - (type === 'integer' ? 1 : 1e-6) : undefined;
    let value: number;
    if (/index|correct/.test(key) && scope.fact !== undefined) value = this.facts.options(scope.fact, scope.optionCount).correctIndex;
    else if (/confidence|probability|certainty/.test(key)) value = this.solution !== undefined ? (this.solution.canSolve ? 1 : 0) : ((min ?? 0) + (max ?? 1)) / 2;
    else if (/count|total|number|num_/.test(key)) value = this.facts.sentences.length;
    else value = min ?? 0;
    if (min !== undefined) value = Math.max(min, value);
    if (max !== undefined) value = Math.min(max, value);
    if (type === 'integer') value = Math.ceil(value);
    const step = schema['multipleOf'];
    if (typeof step === 'number' && step > 0) value = Math.ceil(value / step) * step;
    return value;
  }

  // ---- worked solutions ----

  private solutionObject(schema: Schema): Record<string, unknown> {
    const solution = this.solution!;
    const out: Record<string, unknown> = {};
    const scope = this.scopeFor(schema, this.facts.fact(0), false);
    for (const [key, propSchemaIn] of Object.entries(this.properties(schema))) {
      const propSchema = this.resolve(propSchemaIn);
      const k = normalise(key);
      if (STEPS_KEY.test(k)) out[key] = this.steps(propSchema, solution);
      else if (FINAL_KEY.test(k)) out[key] = solution.canSolve ? solution.finalAnswer : allowsNull(propSchema) ? null : '';
      else if (/can_?solve|solvable|solved/.test(k)) out[key] = solution.canSolve;
      else if (/reason|error|explanation|note/.test(k) && !solution.canSolve && typeOf(propSchema) === 'string') out[key] = solution.reason;
      else if (/method|approach|strategy/.test(k) && typeOf(propSchema) === 'string') out[key] = solution.canSolve ? describeMethod(solution.kind) : 'none';
      else if (/problem|question|statement/.test(k) && typeOf(propSchema) === 'string') out[key] = solution.problem ?? '';
      else out[key] = this.value(propSchema, key, scope, 1);
    }
    return out;
  }

  private steps(schema: Schema, solution: MathSolution): unknown[] {
    let steps: SolutionStep[] = solution.canSolve ? [...solution.steps] : [];
    const min = typeof schema['minItems'] === 'number' ? schema['minItems'] : 0;
    const max = typeof schema['maxItems'] === 'number' ? schema['maxItems'] : Infinity;
    if (!solution.canSolve && min > 0) steps = [{ title: 'Cannot solve', detail: solution.reason }];
    if (steps.length > max && max >= 1) {
      const kept = steps.slice(0, max - 1);
      const rest = steps.slice(max - 1);
      steps = [...kept, { title: rest.map((s) => s.title).join('; '), detail: rest.map((s) => s.detail).join(' ') }];
    }
    while (steps.length < min && solution.canSolve) steps.push({ title: 'Final answer', detail: solution.finalAnswer });
    const items = this.resolve(schema['items'] ?? {});
    return steps.map((step) => {
      if (typeOf(items) !== 'object') return `${step.title}: ${step.detail}`;
      const out: Record<string, unknown> = {};
      for (const [key, propSchema] of Object.entries(this.properties(items))) {
        const k = normalise(key);
        if (/title|name|heading|label|summary/.test(k)) out[key] = step.title;
        else if (/detail|description|explanation|text|content|work|body|reasoning|calculation/.test(k)) out[key] = step.detail;
        else out[key] = this.value(propSchema, key, { fact: undefined, optionCount: 4, item: true }, 2);
      }
      return out;
    });
  }

  // ---- schema helpers ----

  private scopeFor(schemaIn: unknown, fact: Fact | undefined, item: boolean): Scope {
    const schema = this.resolve(schemaIn);
    let optionCount = 4;
    for (const [key, prop] of Object.entries(this.properties(schema))) {
      if (/option|choice|alternative/.test(normalise(key))) optionCount = clampCount(4, this.resolve(prop));
    }
    return { fact, optionCount, item };
  }

  private properties(schema: Schema): Record<string, unknown> {
    const props = schema['properties'];
    return typeof props === 'object' && props !== null ? (props as Record<string, unknown>) : {};
  }

  /** The branch of anyOf/oneOf to fill (the first that is not null), or allOf merged. */
  private branch(schema: Schema): Schema | undefined {
    const options = (schema['anyOf'] ?? schema['oneOf']) as unknown[] | undefined;
    if (Array.isArray(options)) {
      const resolved = options.map((o) => this.resolve(o));
      return resolved.find((o) => typeOf(o) !== 'null') ?? resolved[0];
    }
    const all = schema['allOf'] as unknown[] | undefined;
    if (Array.isArray(all)) {
      const merged: Schema = {};
      for (const part of all.map((o) => this.resolve(o))) {
        Object.assign(merged, part, { properties: { ...this.properties(merged), ...this.properties(part) } });
      }
      delete merged['allOf'];
      return merged;
    }
    return undefined;
  }

  /** Follows local `$ref`s (`#`, `#/$defs/X`, `#/definitions/X`), merging sibling keywords. */
  private resolve(schemaIn: unknown, hops = 0): Schema {
    if (typeof schemaIn !== 'object' || schemaIn === null) return {};
    const schema = schemaIn as Schema;
    const ref = schema['$ref'];
    if (typeof ref !== 'string' || hops > 20) return schema;
    let target: unknown = this.root;
    if (ref !== '#') {
      if (!ref.startsWith('#/')) return schema;
      for (const part of ref.slice(2).split('/')) {
        target = typeof target === 'object' && target !== null ? (target as Schema)[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
      }
    }
    const { $ref: _ref, ...siblings } = schema;
    return { ...this.resolve(target, hops + 1), ...siblings };
  }

  /** "Generate 5 questions" asks for five items in a field named `questions`. */
  private requestedCount(name: string): number | undefined {
    const noun = singular(normalise(name)).replace(/_/g, ' ');
    if (noun === '') return undefined;
    const match = new RegExp(`\\b(\\d{1,2})\\s+(?:[a-z-]+\\s+){0,2}${escapeRegExp(noun)}`, 'i').exec(this.requestText());
    return match?.[1] !== undefined ? Number(match[1]) : undefined;
  }

  private requestText(): string {
    return this.facts.sourceText;
  }
}

const STEPS_KEY = /^(steps|solution_?steps|workings?|work)$/;
const FINAL_KEY = /final_?answer|^answer$|^result$/;

function isSolutionShaped(properties: Record<string, unknown>): boolean {
  const keys = Object.keys(properties).map(normalise);
  return keys.some((k) => STEPS_KEY.test(k)) && keys.some((k) => FINAL_KEY.test(k));
}

function describeMethod(kind: Category): string {
  return `${kind.replace(/_/g, ' ')}: worked by the OpenPaw maths engine (exact arithmetic, answer checked)`;
}

function typeOf(schema: Schema): string {
  const type = schema['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return (type.find((t) => t !== 'null') as string | undefined) ?? 'null';
  if ('properties' in schema) return 'object';
  if ('items' in schema) return 'array';
  return 'string';
}

function allowsNull(schema: Schema): boolean {
  const type = schema['type'];
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  const options = (schema['anyOf'] ?? schema['oneOf']) as unknown[] | undefined;
  return Array.isArray(options) && options.some((o) => typeof o === 'object' && o !== null && (o as Schema)['type'] === 'null');
}

function pickEnum(values: unknown[], name: string, facts: TextFacts): unknown {
  const text = facts.sourceText.toLowerCase();
  const mentioned = values.find((v) => typeof v === 'string' && v.length > 2 && new RegExp(`\\b${escapeRegExp(v.toLowerCase())}\\b`).test(text));
  if (mentioned !== undefined) return mentioned;
  // A difficulty-like enum gets its middle value; others their first.
  return /difficulty|level/.test(normalise(name)) ? values[Math.floor((values.length - 1) / 2)] : values[0];
}

function clampCount(desired: number, schema: Schema): number {
  const min = typeof schema['minItems'] === 'number' ? schema['minItems'] : 0;
  const max = typeof schema['maxItems'] === 'number' ? schema['maxItems'] : Infinity;
  return Math.max(min, Math.min(max, desired));
}

function fitLength(text: string, schema: Schema, facts: TextFacts): string {
  let out = text;
  const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Infinity;
  for (let i = 0; out.length < min && i < facts.sentences.length; i++) out = `${out} ${facts.sentences[i]!}`.trim();
  while (out.length < min) out = `${out} ${text || NO_CONTENT}`.trim();
  if (out.length > max) out = out.slice(0, max);
  return out;
}

function padTo(items: string[], count: number, make: (i: number) => string): string[] {
  const out = [...items];
  while (out.length < count) out.push(make(out.length));
  return out;
}

function normalise(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase();
}

function singular(name: string): string {
  if (/ies$/.test(name)) return name.replace(/ies$/, 'y');
  if (/(ss|sh|ch|x)es$/.test(name)) return name.replace(/es$/, '');
  return name.replace(/s$/, '');
}

function capitalise(term: string): string {
  return term.charAt(0).toUpperCase() + term.slice(1);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function deterministicUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
