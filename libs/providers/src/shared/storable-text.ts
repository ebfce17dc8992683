import { UNPAIRED_SURROGATE } from '@openpaw/contracts';

/**
 * Provider text (a model's reply, a paper's abstract or title, a recognised string) made safe to
 * store and send on: NUL characters are dropped (PostgreSQL refuses U+0000 in `text` and `jsonb`)
 * and an unpaired UTF-16 surrogate becomes U+FFFD, as a UTF-8 encoder would write it. Text a person
 * sends is refused at the edge instead (`freeText()` in `@openpaw/contracts`); text a provider sends
 * cannot be refused by the user, so it is repaired here, in the adapters, before it goes anywhere.
 */
export function toStorableText(text: string): string {
  return text.replaceAll('\u0000', '').replace(UNPAIRED_SURROGATE, '\uFFFD');
}

/** `toStorableText` of every string in a JSON value (a parsed provider reply), keys included. */
export function storableJsonReviver(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? toStorableText(value) : value;
}
