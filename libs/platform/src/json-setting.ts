import { z } from 'zod';

/**
 * A setting given as JSON in one environment variable (a patch over defaults, usually): undefined when
 * unset or blank, else the value validated by `schema`; throws naming the variable and what is wrong.
 */
export function parseJsonSetting<S extends z.ZodType>(name: string, raw: string | undefined, schema: S): z.output<S> | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new Error(`${name} is not valid JSON: ${(error as Error).message}`);
  }
  return validSetting(name, schema, json);
}

/** `value` validated by `schema`, or an error naming the setting and every issue. */
export function validSetting<S extends z.ZodType>(name: string, schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${name} is invalid:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
