/** Environment as plain data, so factories are testable without touching `process.env`. */
export type Env = Readonly<Record<string, string | undefined>>;

/** The trimmed value, or undefined when unset or blank. */
export function envValue(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

export function envList(env: Env, name: string): string[] {
  return (envValue(env, name) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export function envPositiveInt(env: Env, name: string, fallback: number): number {
  const raw = envValue(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  }
  return value;
}

/**
 * The value as an absolute http(s) URL, or undefined when unset; throws naming the variable when it is
 * not one (a typo in a base URL would otherwise surface only on the first call, as a network error).
 */
export function envHttpUrl(env: Env, name: string): string | undefined {
  const raw = envValue(env, name);
  if (raw === undefined) return undefined;
  let protocol: string;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    throw new Error(`${name} must be an http(s) URL, got "${raw}"`);
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, got "${raw}"`);
  return raw;
}
