/** Keys whose string values are kept: identifiers, types and times say where a message belongs without saying what it holds. */
const KEPT_KEY = /(?:[iI]d|Type|At)$|^(?:type|specversion|source|subject|time|version|traceparent)$/;

/**
 * A dead letter's payload for operators: its shape, ids, types and times; every other string
 * replaced by its length (problem texts, prompts, keys and personal data never reach the console).
 */
export function redactPayload(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return KEPT_KEY.test(key) ? value : `[redacted: ${value.length} chars]`;
  if (Array.isArray(value)) return value.map((item) => redactPayload(item, key));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redactPayload(item, name)]));
  return value;
}

/** The payload bytes as JSON, redacted; bytes that are not JSON are only counted. */
export function redactedPayloadOf(bytes: Uint8Array): unknown {
  try {
    return redactPayload(JSON.parse(new TextDecoder().decode(bytes)) as unknown);
  } catch {
    return `[not JSON: ${bytes.length} bytes]`;
  }
}
