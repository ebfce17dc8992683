/** A person's name split for citation formats. */
export type PersonName = { readonly family: string; readonly given: string | null } | { readonly literal: string };

/**
 * "LeCun, Yann" → family LeCun, given Yann; "Ludwig van Beethoven" → family "van Beethoven";
 * "A Vaswani" → family Vaswani, given A; a single word (or an organisation) stays literal.
 */
export function splitName(name: string): PersonName {
  const trimmed = name.replace(/\s+/g, ' ').trim();
  const comma = trimmed.indexOf(',');
  if (comma > 0) {
    const family = trimmed.slice(0, comma).trim();
    const given = trimmed.slice(comma + 1).trim();
    return { family, given: given === '' ? null : given };
  }
  const words = trimmed.split(' ');
  if (words.length < 2) return { literal: trimmed };
  // The family name starts at the first lower-case particle after the first word, else it is the last word.
  let start = words.length - 1;
  for (let i = 1; i < words.length - 1; i++) {
    if (/^(?:van|von|de|der|den|del|della|di|da|du|la|le|ten|ter|bin|al)$/.test(words[i]!)) {
      start = i;
      break;
    }
  }
  return { family: words.slice(start).join(' '), given: words.slice(0, start).join(' ') };
}

export function familyName(name: string): string {
  const split = splitName(name);
  return 'literal' in split ? split.literal : split.family;
}
