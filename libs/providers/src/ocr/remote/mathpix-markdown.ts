/**
 * Mathpix Markdown → plain maths text, the way the other readers write it: prose stays as it is, and
 * each maths span (`\( \)`, `\[ \]`, `$ $`) is LaTeX turned into linear notation ("\frac{3}{4}" →
 * "3/4", "x^{2}" → "x^2", "\sqrt{a+b}" → "√(a+b)", "\times" → "×"). The conversion is total over the
 * LaTeX it knows: a command or construct outside it is named in `unread`, never dropped, so a line
 * holding one is refused rather than read as less maths than was printed.
 */
export interface MathpixLineText {
  readonly text: string;
  /** What could not be written as plain text (an unknown command, a subscript, an nth root); absent when all of it was. */
  readonly unread?: string;
}

/** Commands written as one character (or word) of plain text. */
const SYMBOLS: Readonly<Record<string, string>> = {
  times: '×',
  div: '÷',
  cdot: '·',
  pm: '±',
  mp: '∓',
  le: '≤',
  leq: '≤',
  leqslant: '≤',
  ge: '≥',
  geq: '≥',
  geqslant: '≥',
  ne: '≠',
  neq: '≠',
  lt: '<',
  gt: '>',
  approx: '≈',
  pi: 'π',
  theta: 'θ',
  alpha: 'α',
  beta: 'β',
  gamma: 'γ',
  delta: 'δ',
  lambda: 'λ',
  mu: 'μ',
  sigma: 'σ',
  phi: 'φ',
  omega: 'ω',
  Delta: 'Δ',
  Sigma: 'Σ',
  Omega: 'Ω',
  circ: '°',
  degree: '°',
  '%': '%',
  sin: 'sin',
  cos: 'cos',
  tan: 'tan',
  log: 'log',
  ln: 'ln',
  ldots: '...',
  cdots: '...',
  dots: '...',
};
/** Spacing commands: a space. */
const SPACES = new Set([',', ';', ':', '!', ' ', 'quad', 'qquad', 'enspace', 'thinspace']);
/** Sizing commands before a bracket (`\left(`, `\bigl[`): the bracket alone. */
const SIZING = new Set(['left', 'right', 'big', 'Big', 'bigg', 'Bigg', 'bigl', 'bigr', 'Bigl', 'Bigr']);
/** Commands whose one argument is text, written as it is. */
const TEXT_ARGUMENT = new Set(['text', 'mathrm', 'textrm', 'operatorname', 'mathit', 'mathbf', 'textbf', 'mathsf']);
const FRACTIONS = new Set(['frac', 'dfrac', 'tfrac']);

/** Whether a line holds a maths span (`\\(`, `\\[` or `$`): Mathpix Markdown's, and what a vision model is asked to write. */
export function holdsMathsSpan(line: string): boolean {
  return /\\\(|\\\[|\$/.test(line);
}

class Unread extends Error {}

/** The maths spans of a Mathpix Markdown line, each written as plain maths text. */
export function mathpixLineText(markdown: string): MathpixLineText {
  let text = '';
  let rest = markdown;
  try {
    for (;;) {
      const open = /\\\(|\\\[|\$\$?/.exec(rest);
      if (open === null) break;
      const close = open[0] === '\\(' ? '\\)' : open[0] === '\\[' ? '\\]' : open[0];
      const end = rest.indexOf(close, open.index + open[0].length);
      if (end < 0) throw new Unread(`a maths span opened with ${open[0]} and never closed`);
      text += rest.slice(0, open.index) + new LatexReader(rest.slice(open.index + open[0].length, end)).all();
      rest = rest.slice(end + close.length);
    }
  } catch (error) {
    if (error instanceof Unread) return { text: markdown, unread: error.message };
    throw error;
  }
  return { text: (text + rest).replace(/\s+/g, ' ').trim() };
}

/** A recursive reader of the LaTeX subset above; throws `Unread` naming what it does not know. */
class LatexReader {
  private at = 0;

  constructor(private readonly source: string) {}

  all(): string {
    const out = this.sequence(undefined);
    if (this.at < this.source.length) throw new Unread(`an unmatched "${this.source[this.at]}"`);
    return out;
  }

  /** Items up to `until` (a closing brace or bracket) or the end. */
  private sequence(until: '}' | ']' | undefined): string {
    let out = '';
    while (this.at < this.source.length) {
      const c = this.source[this.at]!;
      if (c === until) return out;
      if (c === '}' || (c === ']' && until === ']')) throw new Unread(`an unmatched "${c}"`);
      out += this.item();
    }
    if (until !== undefined) throw new Unread(`a group opened and never closed ("${until}" missing)`);
    return out;
  }

  private item(): string {
    const c = this.source[this.at]!;
    if (c === '{') return this.group();
    if (c === '^') {
      this.at += 1;
      const exponent = grouped(this.argument());
      // "90^{\circ}" is 90°.
      return exponent === '°' ? '°' : `^${exponent}`;
    }
    if (c === '_') throw new Unread('a subscript');
    if (c === '~') {
      this.at += 1;
      return ' ';
    }
    if (c === '&' || c === '#') throw new Unread(`"${c}" (an alignment or parameter)`);
    // Spaces in maths mode are nothing ("2 x" is 2x); spacing commands are spaces.
    if (/\s/.test(c)) {
      this.at += 1;
      return '';
    }
    if (c !== '\\') {
      this.at += 1;
      return c;
    }
    return this.command();
  }

  /** `{…}`: its content (grouping only). */
  private group(): string {
    this.at += 1;
    const inner = this.sequence('}');
    this.at += 1;
    return inner;
  }

  /** `{…}` of text: its content as written, spaces kept (`\text{ area }`). */
  private rawGroup(): string {
    const end = this.source.indexOf('}', this.at);
    const inner = end < 0 ? '' : this.source.slice(this.at + 1, end);
    if (end < 0 || /[{\\]/.test(inner)) throw new Unread('text with braces or commands inside');
    this.at = end + 1;
    return inner;
  }

  /** One argument: a group, a command or a single character. */
  private argument(): string {
    while (this.source[this.at] === ' ') this.at += 1;
    if (this.at >= this.source.length) throw new Unread('a command with its argument missing');
    return this.item();
  }

  private command(): string {
    this.at += 1;
    const name = /^[A-Za-z]+/.exec(this.source.slice(this.at))?.[0] ?? this.source[this.at] ?? '';
    this.at += name.length;
    if (name === '') throw new Unread('a lone "\\"');
    if (SPACES.has(name)) return ' ';
    if (SIZING.has(name)) {
      while (this.source[this.at] === ' ') this.at += 1;
      if (this.source.startsWith('\\|', this.at)) {
        this.at += 2;
        return '|';
      }
      const bracket = this.source[this.at];
      if (bracket === undefined || !'()[]|.'.includes(bracket)) throw new Unread(`\\${name} before "${bracket ?? ''}"`);
      this.at += 1;
      // "\right." closes nothing.
      return bracket === '.' ? '' : bracket;
    }
    if (FRACTIONS.has(name)) {
      const numerator = this.argument();
      const denominator = this.argument();
      return `${grouped(numerator)}/${grouped(denominator)}`;
    }
    if (name === 'sqrt') {
      while (this.source[this.at] === ' ') this.at += 1;
      if (this.source[this.at] === '[') throw new Unread('an nth root');
      return `√(${this.argument()})`;
    }
    if (TEXT_ARGUMENT.has(name)) {
      while (this.source[this.at] === ' ') this.at += 1;
      if (this.source[this.at] !== '{') throw new Unread(`\\${name} without its braces`);
      return this.rawGroup();
    }
    const symbol = SYMBOLS[name];
    if (symbol === undefined) throw new Unread(`the LaTeX command \\${name}`);
    // "\sin x", "\times3": a word-like symbol keeps apart from what follows.
    return /^[a-z]/.test(symbol) ? `${symbol} ` : symbol;
  }
}

/** An operand as linear text: bracketed unless it is one number or one letter. */
function grouped(operand: string): string {
  const trimmed = operand.trim();
  return /^(?:\d+(?:\.\d+)?|\p{L}|°)$/u.test(trimmed) ? trimmed : `(${trimmed})`;
}
