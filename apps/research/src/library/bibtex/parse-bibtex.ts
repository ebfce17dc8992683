import { type CslData, cslOfBibtexEntries, type RawBibtexEntry, readBibtexEntries } from '../citation-js.js';

/** One BibTeX entry: its type and key, its fields as written (braces kept), and the same entry decoded to CSL-JSON. */
export interface BibtexEntry {
  readonly type: string;
  readonly key: string;
  /** Lower-case field names; `@string` macros and months expanded; LaTeX not decoded (identifiers are read from here). */
  readonly fields: Readonly<Record<string, string>>;
  /** The entry decoded by Citation.js: LaTeX accents as Unicode, names split, the date read. */
  readonly csl: CslData;
}

export interface BibtexParseResult {
  readonly entries: BibtexEntry[];
  /** Entries that could not be read: their position among the file's entries and why. */
  readonly errors: { readonly entry: number; readonly reason: string }[];
}

/** Where each `@type{` or `@type(` starts: the file's pieces, for reading past a malformed entry. */
const ENTRY_START = /@\s*([A-Za-z]+)\s*[{(]/g;

interface Piece {
  readonly kind: 'string' | 'other' | 'entry';
  readonly text: string;
  /** What the entry says it is, for the error message: `@article{key`. */
  readonly head: string;
}

/**
 * Reads a BibTeX file with Citation.js (`@string` macros, month names, `#` concatenation, nested
 * braces, `{}` or `()` bodies, `@comment` and `@preamble`). A malformed entry is reported and the
 * rest is read: the file is cut at each `@type{` and the halves that fail are read again, each
 * after the `@string` definitions before it, until the failing entries stand alone.
 */
export function parseBibtex(source: string): BibtexParseResult {
  const entries: BibtexEntry[] = [];
  const errors: { entry: number; reason: string }[] = [];
  const add = (raw: readonly RawBibtexEntry[]): void => {
    let csl: CslData[];
    try {
      csl = cslOfBibtexEntries(raw);
    } catch {
      // One entry the mapping cannot take must not lose the others: map them one at a time.
      for (const entry of raw) add1(entry);
      return;
    }
    raw.forEach((entry, i) => entries.push({ type: entry.type, key: entry.label, fields: entry.properties, csl: csl[i]! }));
  };
  const add1 = (entry: RawBibtexEntry): void => {
    try {
      entries.push({ type: entry.type, key: entry.label, fields: entry.properties, csl: cslOfBibtexEntries([entry])[0]! });
    } catch (error) {
      errors.push({ entry: entries.length + errors.length, reason: `@${entry.type}{${entry.label}}: ${firstLine(error)}` });
    }
  };
  try {
    add(readBibtexEntries(source));
    return { entries, errors };
  } catch {
    // Read piece by piece below.
  }
  readPieces(piecesOf(source), '', {
    entries: add,
    error: (piece, error) => errors.push({ entry: entries.length + errors.length, reason: `${piece.head}: ${firstLine(error)}` }),
  });
  return { entries, errors };
}

interface Sink {
  entries(raw: readonly RawBibtexEntry[]): void;
  error(piece: Piece, error: unknown): void;
}

/** Reads the pieces after `prelude` (the `@string` definitions before them); returns the prelude for what follows. */
function readPieces(pieces: readonly Piece[], prelude: string, sink: Sink): string {
  if (pieces.length === 0) return prelude;
  try {
    const raw = readBibtexEntries(prelude + pieces.map((p) => p.text).join(''));
    sink.entries(raw);
    return prelude + pieces.filter((p) => p.kind === 'string').map((p) => p.text).join('');
  } catch (error) {
    if (pieces.length === 1) {
      if (pieces[0]!.kind === 'entry') sink.error(pieces[0]!, error);
      return prelude;
    }
    const middle = pieces.length >> 1;
    return readPieces(pieces.slice(middle), readPieces(pieces.slice(0, middle), prelude, sink), sink);
  }
}

function piecesOf(source: string): Piece[] {
  const starts = [...source.matchAll(ENTRY_START)];
  return starts.map((match, i) => {
    const text = source.slice(match.index, starts[i + 1]?.index ?? source.length);
    const type = match[1]!.toLowerCase();
    const key = type === 'string' || type === 'preamble' || type === 'comment' ? '' : (/^[^,\s})]*/.exec(text.slice(match[0].length))?.[0] ?? '');
    return { kind: type === 'string' ? 'string' : type === 'preamble' || type === 'comment' ? 'other' : 'entry', text, head: `@${type}{${key}` };
  });
}

/** A parser error's first line, without Citation.js's line and column (they count from the piece read, not the file). */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const text = (message.split('\n')[0] ?? message).replace(/\s*at line \d+ col \d+:?$/, '').trim() || 'could not be read';
  // The parser's words for a missing comma, said as a user can act on them (the hand-written reader
  // guessed the comma; this one asks for it). The only comma BibTeX requires is the one after the key.
  if (/expected "rbrace", got "identifier"/.test(text)) return `${text}: a comma is missing between two fields; add it and import the file again`;
  if (/expected "comma"/.test(text)) return `${text}: a comma is missing after the entry key; add it and import the file again`;
  return text;
}
