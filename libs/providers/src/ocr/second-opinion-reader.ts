import type { OcrLine, OcrReader, OcrReading, OcrReadOptions } from './port.js';

/**
 * A reader whose every reading another reader must vouch for: both read the image, and the first's
 * reading stands only when the maths in the two is the same (numbers, operators, relations, brackets
 * and one-letter unknowns in order, prose words aside). Then its lines carry the second reader's
 * weakest confidence; otherwise each line says the readers disagree (`unread`, with both readings),
 * so the reading is refused or offered to the user to confirm, never solved.
 */
export class SecondOpinionReader implements OcrReader {
  readonly reader: string;
  readonly local: boolean;

  constructor(
    private readonly first: OcrReader,
    private readonly second: OcrReader,
  ) {
    this.reader = `${first.reader}+${second.reader}`;
    this.local = first.local && second.local;
  }

  async read(image: Uint8Array, options: OcrReadOptions = {}): Promise<OcrReading> {
    // Each reading whole, now: a second look asked for later would come back without the second reader's vouching.
    const whole: OcrReadOptions = { ...options, secondLook: 'now' };
    const [first, second] = await Promise.all([this.first.read(image, whole), this.second.read(image, whole)]);
    const firstMaths = mathsOf(first);
    const secondMaths = mathsOf(second);
    const weakest = Math.min(1, ...second.lines.filter((l) => l.text !== '').map((l) => l.confidence));
    const lines: OcrLine[] =
      firstMaths === secondMaths
        ? first.lines.map((l) => ({ ...l, confidence: weakest }))
        : first.lines.map((l) => ({ ...l, unread: l.unread ?? `maths ${this.second.reader} read otherwise ("${textOf(second).slice(0, 200)}")` }));
    return { ...first, reader: this.reader, local: this.local, lines };
  }

  async close(): Promise<void> {
    await Promise.all([this.first.close(), this.second.close()]);
  }
}

const textOf = (reading: OcrReading): string => reading.lines.map((l) => l.text).join(' ');

/** The maths of a reading, as one comparable string: widths and spellings of signs folded, superscripts written as powers; prose words dropped. */
export function mathsOf(reading: OcrReading): string {
  const folded = textOf(reading)
    // A superscript is a power, not a digit beside its base ("x²" is not "x2"): NFKC would fold it to one.
    .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹]+/g, (power) => `^${power.normalize('NFKC')}`)
    .normalize('NFKC')
    .replace(/[−–]/g, '-')
    .replace(/[×·*]/g, '*')
    .replace(/÷/g, '/')
    .replace(/\bsqrt\b/g, '√');
  const tokens = folded.match(/\d+(?:[.,]\d+)?|\p{L}+|[^\s\p{L}\d]/gu) ?? [];
  return tokens.filter((t) => !/^\p{L}{2,}$/u.test(t) && !/^[:;!?"'`.,]$/.test(t)).join(' ');
}
