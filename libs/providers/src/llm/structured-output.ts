import { z } from 'zod';
import type { ChatMessage, JsonSchema } from './port.js';
import { storableJsonReviver } from '../shared/storable-text.js';

/** The JSON Schema the model is asked to satisfy: the schema's input side (what `parse` accepts). */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json['$schema'];
  return json;
}

/** Appends the schema instruction as a final system message; providers without a JSON mode rely on it. */
export function withSchemaInstruction(messages: readonly ChatMessage[], schema: JsonSchema): ChatMessage[] {
  return [
    ...messages,
    {
      role: 'system',
      content:
        'Reply with a single JSON value and nothing else (no prose, no code fences). ' +
        `It must validate against this JSON Schema:\n${JSON.stringify(schema)}`,
    },
  ];
}

export function reaskMessages(messages: readonly ChatMessage[], rawText: string, issues: readonly string[]): ChatMessage[] {
  return [
    ...messages,
    { role: 'assistant', content: rawText },
    {
      role: 'user',
      content:
        'Your reply did not validate against the JSON Schema:\n' +
        issues.map((issue) => `- ${issue}`).join('\n') +
        '\nReply again with only the corrected JSON value.',
    },
  ];
}

export type ValidationOutcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly string[] };

/** Parses a reply (tolerating code fences and prose around one JSON value) and validates it. */
export function validateReply<S extends z.ZodType>(rawText: string, schema: S): ValidationOutcome<z.output<S>> {
  const json = extractJsonText(rawText);
  if (json === undefined) return { ok: false, issues: ['the reply contains no JSON value'] };
  let data: unknown;
  try {
    // A `\u0000` escape in the reply would become a NUL here: repaired like the reply's text.
    data = JSON.parse(json, storableJsonReviver);
  } catch (error) {
    return { ok: false, issues: [`the reply is not valid JSON: ${(error as Error).message}`] };
  }
  const result = schema.safeParse(data);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`),
  };
}

/** The JSON value in a reply: a fenced block if there is one, else from the first `{`/`[` to the last `}`/`]`. */
export function extractJsonText(rawText: string): string | undefined {
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(rawText);
  const text = (fenced?.[1] ?? rawText).trim();
  if (text === '') return undefined;
  const first = text.search(/[[{]/);
  if (first < 0) return text; // a bare scalar (`true`, `42`, `"x"`) is still JSON
  const open = text[first];
  const last = text.lastIndexOf(open === '{' ? '}' : ']');
  return last > first ? text.slice(first, last + 1) : text.slice(first);
}
