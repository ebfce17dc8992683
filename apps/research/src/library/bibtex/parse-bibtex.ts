import { OpenPawError } from '@openpaw/contracts';
/** One BibTeX entry as written: its type, key and raw field values (macros expanded, braces kept). */
export interface BibtexEntry {
  readonly type: string;
  readonly key: string;
  /** Lower-case field names. */
  readonly fields: Readonly<Record<string, string>>;
}

export interface BibtexParseResult {
  readonly entries: BibtexEntry[];
  /** Entries that could not be read: their position among the file's entries and why. */
  readonly errors: { readonly entry: number; readonly reason: string }[];
}

const MONTHS: Readonly<Record<string, string>> = { jan: '1', feb: '2', mar: '3', apr: '4', may: '5', jun: '6', jul: '7', aug: '8', sep: '9', oct: '10', nov: '11', dec: '12' };

class BibtexSyntaxError extends OpenPawError {
  readonly code = 'bibtex_syntax';
}

/**
 * A BibTeX reader: `@type{key, field = {braced} | "quoted" | 123 | macro # "concatenated"}`, with
 * `@string` macros and month names, `@comment` and `@preamble` skipped, either `{}` or `()` around an
 * entry. A malformed entry is reported and skipped; the reader resumes at the next `@`.
 */
export function parseBibtex(source: string): BibtexParseResult {
  const entries: BibtexEntry[] = [];
  const errors: { entry: number; reason: string }[] = [];
  const macros = new Map<string, string>(Object.entries(MONTHS));
  let position = 0;
  let index = 0;
  while (true) {
    const at = source.indexOf('@', position);
    if (at < 0) break;
    const reader = new Reader(source, at + 1);
    const type = reader.identifier().toLowerCase();
    if (type === '') {
      position = at + 1;
      continue;
    }
    if (type === 'comment') {
      position = reader.skipComment();
      continue;
    }
    try {
      const close = reader.open();
      if (type === 'preamble') {
        reader.value(macros);
        reader.close(close);
      } else if (type === 'string') {
        const name = reader.identifier().toLowerCase();
        reader.expect('=');
        macros.set(name, reader.value(macros));
        reader.close(close);
      } else {
        entries.push(readEntry(reader, type, close, macros));
        index += 1;
      }
      position = reader.position;
    } catch (error) {
      errors.push({ entry: index, reason: error instanceof Error ? error.message : String(error) });
      index += 1;
      position = at + 1;
    }
  }
  return { entries, errors };
}

function readEntry(reader: Reader, type: string, close: string, macros: ReadonlyMap<string, string>): BibtexEntry {
  const key = reader.until(/[,\s})]/).trim();
  if (key === '') throw new BibtexSyntaxError(`@${type} entry has no citation key`);
  const fields: Record<string, string> = {};
  while (true) {
    reader.skipSpace();
    if (reader.peek() === ',') {
      reader.advance();
      reader.skipSpace();
    }
    if (reader.peek() === close) {
      reader.advance();
      return { type, key, fields };
    }
    if (reader.done()) throw new BibtexSyntaxError(`@${type}{${key}: unexpected end of file`);
    const name = reader.identifier().toLowerCase();
    if (name === '') throw new BibtexSyntaxError(`@${type}{${key}: expected a field name at offset ${reader.position}`);
    reader.expect('=');
    fields[name] = reader.value(macros);
  }
}

class Reader {
  constructor(
    private readonly text: string,
    public position: number,
  ) {}

  done(): boolean {
    return this.position >= this.text.length;
  }

  peek(): string {
    return this.text[this.position] ?? '';
  }

  advance(): void {
    this.position += 1;
  }

  skipSpace(): void {
    while (!this.done() && /\s/.test(this.peek())) this.advance();
  }

  identifier(): string {
    this.skipSpace();
    const match = /^[A-Za-z0-9_:.+/'-]+/.exec(this.text.slice(this.position, this.position + 200));
    if (match === null) return '';
    this.position += match[0].length;
    return match[0];
  }

  until(stop: RegExp): string {
    this.skipSpace();
    const start = this.position;
    while (!this.done() && !stop.test(this.peek())) this.advance();
    return this.text.slice(start, this.position);
  }

  expect(char: string): void {
    this.skipSpace();
    if (this.peek() !== char) throw new BibtexSyntaxError(`expected "${char}" at offset ${this.position}, found "${this.peek() || 'end of file'}"`);
    this.advance();
  }

  /** Opens an entry body; returns its closing character. */
  open(): string {
    this.skipSpace();
    const c = this.peek();
    if (c !== '{' && c !== '(') throw new BibtexSyntaxError(`expected "{" after @ at offset ${this.position}`);
    this.advance();
    return c === '{' ? '}' : ')';
  }

  close(char: string): void {
    this.expect(char);
  }

  skipComment(): number {
    this.skipSpace();
    if (this.peek() === '{') {
      this.braced();
      return this.position;
    }
    const newline = this.text.indexOf('\n', this.position);
    return newline < 0 ? this.text.length : newline + 1;
  }

  /** A field value: parts joined with `#`. */
  value(macros: ReadonlyMap<string, string>): string {
    let result = '';
    while (true) {
      this.skipSpace();
      const c = this.peek();
      if (c === '{') result += this.braced();
      else if (c === '"') result += this.quoted();
      else {
        const word = this.identifier();
        if (word === '') throw new BibtexSyntaxError(`expected a value at offset ${this.position}`);
        result += /^\d+$/.test(word) ? word : (macros.get(word.toLowerCase()) ?? word);
      }
      this.skipSpace();
      if (this.peek() !== '#') return result;
      this.advance();
    }
  }

  /** `{...}` with nested braces; returns the inside. */
  private braced(): string {
    const start = this.position + 1;
    let depth = 0;
    do {
      const c = this.peek();
      if (c === '') throw new BibtexSyntaxError(`unbalanced braces from offset ${start - 1}`);
      if (c === '\\') this.advance();
      else if (c === '{') depth += 1;
      else if (c === '}') depth -= 1;
      this.advance();
    } while (depth > 0);
    return this.text.slice(start, this.position - 1);
  }

  /** `"..."` where quotes inside braces do not end it. */
  private quoted(): string {
    const start = this.position + 1;
    this.advance();
    let depth = 0;
    while (true) {
      const c = this.peek();
      if (c === '') throw new BibtexSyntaxError(`unterminated quoted value from offset ${start - 1}`);
      if (c === '\\') this.advance();
      else if (c === '{') depth += 1;
      else if (c === '}') depth -= 1;
      else if (c === '"' && depth === 0) break;
      this.advance();
    }
    this.advance();
    return this.text.slice(start, this.position - 1);
  }
}

/** Splits a BibTeX `author` value on top-level `and` (brace-protected names stay whole). */
export function splitBibtexNames(value: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '{') depth += 1;
    else if (c === '}') depth -= 1;
    else if (depth === 0 && /\s/.test(c ?? '') && /^\s+and\s/i.test(value.slice(i))) {
      names.push(value.slice(start, i));
      const match = /^\s+and\s+/i.exec(value.slice(i));
      i += (match?.[0].length ?? 1) - 1;
      start = i + 1;
    }
  }
  names.push(value.slice(start));
  return names.map((n) => n.trim()).filter((n) => n !== '');
}
