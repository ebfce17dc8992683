/** Patterns of well-known credential formats, masked wherever text leaves this lib. */
const KNOWN_KEY_PATTERNS: readonly RegExp[] = [
  /sk-[A-Za-z0-9_-]{8,}/g, // OpenAI, Anthropic (sk-ant-...)
  /AIza[0-9A-Za-z_-]{20,}/g, // Google API keys
  /(Bearer\s+)[A-Za-z0-9._~+/-]{8,}=*/gi,
];

/**
 * Masks every given secret and every string shaped like a known API key. Used on error messages
 * and log fields so a key never reaches a log, a step log or an event, even when a provider echoes it.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  for (const pattern of KNOWN_KEY_PATTERNS) {
    out = out.replace(pattern, (match, bearer?: unknown) => (typeof bearer === 'string' && match.startsWith(bearer) ? `${bearer}[redacted]` : '[redacted]'));
  }
  return out;
}
