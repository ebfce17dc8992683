/** The largest library file `POST /library/references/file` reads (bytes); larger is a 413 naming the limit. */
export const LIBRARY_FILE_MAX_BYTES = 50 * 1024 * 1024;

/**
 * The most one part may take (UTF-8 bytes): under ImportLibraryReferences' 512 KiB of text, which is
 * counted in characters, so a part of at most this many bytes always fits.
 */
export const LIBRARY_PART_MAX_BYTES = 480 * 1024;

export type LibraryFileFormat = 'bibtex' | 'ris';

/** A run of whole entries, small enough for one ImportLibraryReferences. */
export interface LibraryPart {
  readonly kind: 'part';
  /** 1-based. */
  readonly part: number;
  readonly text: string;
  /** The file's bytes read so far (progress). */
  readonly bytesRead: number;
  /** Where the part's own entries start in the file, in order: the research service names an entry it skips by its head, and the file's line is found here. */
  readonly entries: readonly EntryStart[];
}

/** An entry's head as written (`@article{key`: type in lower case, key as written) and its 1-based line in the file. */
export interface EntryStart {
  readonly head: string;
  readonly line: number;
}

/** Where each BibTeX entry of a text starts (1-based lines), by its head. */
export function entryStartsOf(text: string): EntryStart[] {
  return text.split('\n').flatMap((line, i) => {
    const head = entryHeadOf(line);
    return head === undefined ? [] : [{ head, line: i + 1 }];
  });
}

/** `@Article{ key,` → `@article{key`: how an entry names itself in a skipped entry's reason (BibTeX; RIS records have no head). */
export function entryHeadOf(firstLine: string): string | undefined {
  const match = /^\s*@\s*([A-Za-z]+)\s*[{(]\s*([^,\s})]*)/.exec(firstLine);
  return match === null ? undefined : `@${match[1]!.toLowerCase()}{${match[2]!}`;
}

/** An entry larger than a part can carry: left out, and said so with the line it starts on. */
export interface OversizedEntry {
  readonly kind: 'oversized';
  /** 1-based line of the file where the entry starts. */
  readonly line: number;
  readonly bytes: number;
}

/** The file is larger than the limit; thrown as soon as the limit is passed (the rest is never read). */
export class LibraryFileTooLargeError extends Error {
  override readonly name = 'LibraryFileTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the library file is larger than the limit of ${maxBytes} bytes (${Math.round(maxBytes / (1024 * 1024))} MiB)`);
  }
}

/** The file holds text no PostgreSQL text column can store (NUL): refused, naming the line, never imported. */
export class LibraryFileTextError extends Error {
  override readonly name = 'LibraryFileTextError';
  constructor(readonly line: number) {
    super(`line ${line} of the library file holds NUL (U+0000), which no reference can store: remove it and send the file again`);
  }
}

interface Limits {
  readonly maxBytes: number;
  readonly partBytes: number;
}

/** Does `line` start a new entry (BibTeX `@type{`), or end one (RIS `ER  -`)? */
function startsEntry(format: LibraryFileFormat, line: string): boolean {
  return format === 'bibtex' && /^\s*@/.test(line);
}
function endsEntry(format: LibraryFileFormat, line: string): boolean {
  return format === 'ris' && /^ER {2}-/.test(line);
}
/** A BibTeX `@string` definition, which every later entry may use. */
function definesMacro(format: LibraryFileFormat, firstLine: string | undefined): boolean {
  return format === 'bibtex' && /^\s*@\s*string\s*[{(]/i.test(firstLine ?? '');
}

/**
 * Splits a BibTeX or RIS file, read chunk by chunk, into parts of whole entries of at most
 * `partBytes` each, so no more than one part (plus one line) is ever held: a 50 MB library is never
 * buffered whole. An entry that alone exceeds a part is reported (`oversized`), not sent cut. Past
 * `maxBytes` of input it throws `LibraryFileTooLargeError`. BibTeX entries start at a line beginning
 * with `@`; RIS records end at their `ER  -` line. A NUL anywhere throws `LibraryFileTextError` naming its line.
 */
export async function* libraryParts(chunks: AsyncIterable<Uint8Array | string>, format: LibraryFileFormat, limits: Limits = { maxBytes: LIBRARY_FILE_MAX_BYTES, partBytes: LIBRARY_PART_MAX_BYTES }): AsyncGenerator<LibraryPart | OversizedEntry> {
  const decoder = new TextDecoder('utf-8');
  const encoder = new TextEncoder();
  let bytesRead = 0;
  let lineNo = 0;
  let pendingLine = '';
  /**
   * The `@string` definitions read so far: each part after them starts with them, so an entry that
   * uses a macro reads the same in any part (each part is read on its own). Kept while they take at
   * most a quarter of a part; a file with more macros than that gets the first ones in every part.
   */
  const macros: string[] = [];
  let macroBytes = 0;
  /** The current part: the macros before it, then its own entries. */
  let part: string[] = [];
  let partBytes = 0;
  let partHasEntries = false;
  let partEntries: EntryStart[] = [];
  let parts = 0;
  /** The entry being read: its text (dropped once too large), size and first line. */
  let entry: string[] = [];
  let entryBytes = 0;
  let entryLine = 1;
  /** True while the rest of an over-long line (already counted) is still arriving. */
  let midLine = false;

  function* closeEntry(): Generator<LibraryPart | OversizedEntry> {
    if (entryBytes === 0) return;
    if (entryBytes > limits.partBytes) yield { kind: 'oversized', line: entryLine, bytes: entryBytes };
    else {
      if (partBytes + entryBytes > limits.partBytes) yield* closePart();
      part.push(...entry);
      const head = entryHeadOf(entry[0] ?? '');
      if (head !== undefined) partEntries.push({ head, line: entryLine });
      partBytes += entryBytes;
      partHasEntries = true;
      if (definesMacro(format, entry[0]) && macroBytes + entryBytes <= limits.partBytes / 4) {
        macros.push(...entry);
        macroBytes += entryBytes;
      }
    }
    entry = [];
    entryBytes = 0;
  }
  function* closePart(): Generator<LibraryPart> {
    if (!partHasEntries) return;
    parts += 1;
    yield { kind: 'part', part: parts, text: part.join(''), bytesRead, entries: partEntries };
    partEntries = [];
    part = [...macros];
    partBytes = macroBytes;
    partHasEntries = false;
  }
  /** A line's start: a new entry's first line (BibTeX), else part of the current entry. */
  function* startLine(line: string): Generator<LibraryPart | OversizedEntry> {
    lineNo += 1;
    if (startsEntry(format, line)) {
      yield* closeEntry();
      entryLine = lineNo;
    } else if (entryBytes === 0) entryLine = lineNo;
  }
  function* takeLine(line: string): Generator<LibraryPart | OversizedEntry> {
    if (line.includes('\u0000')) throw new LibraryFileTextError(lineNo + (midLine ? 0 : 1));
    if (midLine) {
      // The end of a line too long for a part: its entry is already oversized; only its size counts.
      midLine = false;
      entryBytes += encoder.encode(line).length;
      return;
    }
    yield* startLine(line);
    if (entryBytes === 0 && line.trim() === '') return;
    const size = encoder.encode(line).length;
    entryBytes += size;
    // An entry too large for a part is only measured from here on, never held.
    if (entryBytes <= limits.partBytes) entry.push(line);
    else entry = [];
    if (endsEntry(format, line)) yield* closeEntry();
  }

  for await (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    bytesRead += bytes.length;
    if (bytesRead > limits.maxBytes) throw new LibraryFileTooLargeError(limits.maxBytes);
    pendingLine += decoder.decode(bytes, { stream: true });
    let start = 0;
    for (let newline = pendingLine.indexOf('\n'); newline >= 0; newline = pendingLine.indexOf('\n', start)) {
      yield* takeLine(pendingLine.slice(start, newline + 1));
      start = newline + 1;
    }
    pendingLine = pendingLine.slice(start);
    // One line longer than a part (no newline in sight) makes its entry oversized: measured, not held.
    if (pendingLine.length > limits.partBytes) {
      if (pendingLine.includes('\u0000')) throw new LibraryFileTextError(lineNo + (midLine ? 0 : 1));
      if (!midLine) yield* startLine(pendingLine);
      entryBytes = Math.max(entryBytes + encoder.encode(pendingLine).length, limits.partBytes + 1);
      entry = [];
      pendingLine = '';
      midLine = true;
    }
  }
  pendingLine += decoder.decode();
  if (pendingLine !== '') yield* takeLine(pendingLine);
  yield* closeEntry();
  yield* closePart();
}
