/** One RIS record: its type and every tag's values, in order (AU, KW, UR repeat). */
export interface RisRecord {
  readonly type: string;
  readonly tags: Readonly<Record<string, readonly string[]>>;
}

export interface RisParseResult {
  readonly records: RisRecord[];
  readonly errors: { readonly entry: number; readonly reason: string }[];
}

const TAG_LINE = /^([A-Z][A-Z0-9])  -(?: (.*))?$/;

/**
 * A RIS reader: `TY  - ` opens a record, `ER  - ` closes it, `XX  - value` lines add values; a line
 * without a tag continues the previous value (wrapped abstracts). A record without TY or ER is
 * reported and skipped.
 */
export function parseRis(source: string): RisParseResult {
  const records: RisRecord[] = [];
  const errors: { entry: number; reason: string }[] = [];
  let current: { type: string; tags: Record<string, string[]>; last: string | null } | null = null;
  let index = 0;
  const lines = source.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (const [lineNo, raw] of lines.entries()) {
    const line = raw.replace(/\s+$/, '');
    const match = TAG_LINE.exec(line);
    if (match === null) {
      if (line.trim() === '') continue;
      if (current?.last != null) {
        const values = current.tags[current.last]!;
        values[values.length - 1] = `${values[values.length - 1] ?? ''} ${line.trim()}`;
      }
      continue;
    }
    const tag = match[1]!;
    const value = (match[2] ?? '').trim();
    if (tag === 'TY') {
      if (current !== null) {
        errors.push({ entry: index, reason: `record opened at line ${lineNo + 1} before the previous one ended (no ER)` });
        index += 1;
      }
      current = { type: value.toUpperCase(), tags: {}, last: null };
      continue;
    }
    if (current === null) {
      if (tag !== 'ER') errors.push({ entry: index, reason: `line ${lineNo + 1}: ${tag} outside a record (no TY)` });
      continue;
    }
    if (tag === 'ER') {
      records.push({ type: current.type, tags: current.tags });
      current = null;
      index += 1;
      continue;
    }
    (current.tags[tag] ??= []).push(value);
    current.last = tag;
  }
  if (current !== null) errors.push({ entry: index, reason: 'last record has no ER' });
  return { records, errors };
}
