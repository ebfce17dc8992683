import { z } from 'zod';

/**
 * Why text is refused: PostgreSQL cannot store U+0000 in `text`/`jsonb` ("unsupported Unicode escape
 * sequence"), and an unpaired UTF-16 surrogate is not Unicode at all (it cannot be encoded as UTF-8).
 */
export const FREE_TEXT_MESSAGE = 'must not contain NUL (U+0000) or an unpaired UTF-16 surrogate';

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
export const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Whether `value` can be stored and sent on as it is: no NUL, every surrogate paired. */
export function isStorableText(value: string): boolean {
  // `String.prototype.isWellFormed` is ES2024; the libs compile against ES2023.
  return !value.includes('\u0000') && value.search(UNPAIRED_SURROGATE) < 0;
}

/**
 * The one string schema for free text a person or a client writes (prompts, titles, queries, notes,
 * document text): a string refusing NUL and lone surrogates, so the edge answers 400 naming the field
 * instead of a run failing where the text reaches PostgreSQL. Chain bounds and `trim` on it as on
 * `z.string()`. The refinement does not appear in the JSON Schema (no `pattern`), so applying it to an
 * existing field leaves the generated contracts, and their compatibility, unchanged.
 */
export function freeText(): z.ZodString {
  return z.string().refine(isStorableText, { message: FREE_TEXT_MESSAGE });
}
