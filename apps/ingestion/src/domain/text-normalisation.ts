/**
 * Version of the normalisation rules. The normalised text's sha256 is an exact-match key, so stored
 * keys are only comparable under one version; bump it whenever a rule changes.
 */
export const TEXT_NORMALISATION_VERSION = 'text-norm/v1';

const SUPERSCRIPTS: Readonly<Record<string, string>> = {
  '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9',
  '⁺': '+', '⁻': '-', '⁼': '=', '⁽': '(', '⁾': ')', 'ⁿ': 'n', 'ⁱ': 'i', 'ˣ': 'x', 'ʸ': 'y',
};

const VULGAR_FRACTIONS: Readonly<Record<string, string>> = {
  '¼': '1/4', '½': '1/2', '¾': '3/4', '⅐': '1/7', '⅑': '1/9', '⅒': '1/10', '⅓': '1/3', '⅔': '2/3', '⅕': '1/5',
  '⅖': '2/5', '⅗': '3/5', '⅘': '4/5', '⅙': '1/6', '⅚': '5/6', '⅛': '1/8', '⅜': '3/8', '⅝': '5/8', '⅞': '7/8', '↉': '0/3',
};

/** Symbols with an ASCII spelling that a keyboard copy of the same problem would use. */
const SYMBOLS: readonly (readonly [RegExp, string])[] = [
  [/[×✕✖⨯∗⋅·∙•]/g, '*'],
  [/[÷∕⁄]/g, '/'],
  [/[−‐‑‒–—―⁃﹣－]/g, '-'],
  [/≤|⩽/g, '<='],
  [/≥|⩾/g, '>='],
  [/≠/g, '!='],
  [/≈/g, '~='],
  [/√/g, 'sqrt'],
  [/π/g, 'pi'],
  [/∞/g, 'inf'],
  [/°/g, ' deg'],
  [/∶/g, ':'],
  [/[‘’‚‛′]/g, "'"],
  [/[“”„‟″]/g, '"'],
];

/** Binary operators whose surrounding spaces carry no meaning: "2x + 3 = 7" and "2x+3=7" are one problem. */
const OPERATOR = String.raw`(?:<=|>=|!=|~=|\*\*|[-+*/=<>^])`;

/**
 * Canonical form of a problem's text, so trivially different copies (typed, pasted, OCR'd; Unicode or
 * ASCII maths; different spacing and case) produce the same string and therefore the same sha256.
 * Order matters: superscripts and vulgar fractions are rewritten before NFKC, which would otherwise
 * flatten "x²" into "x2" and "1½" into "11⁄2" and lose the meaning.
 */
export function normaliseText(input: string): string {
  let text = input;
  text = text.replace(/[\u200B-\u200D\u2060\uFEFF\u00AD]/g, '');
  // Subscripts are left to NFKC, which flattens them: "H₂O" is typed "H2O", "x₁" is typed "x1".
  text = rewriteSuperscripts(text);
  text = text.replace(/(\d)?([¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞↉])/g, (_m, whole: string | undefined, fraction: string) => {
    const value = VULGAR_FRACTIONS[fraction] ?? fraction;
    return whole === undefined ? ` ${value} ` : `${whole} ${value} `;
  });
  text = text.normalize('NFKC');
  for (const [pattern, replacement] of SYMBOLS) text = text.replace(pattern, replacement);
  text = foldCase(text);
  text = text.replace(/\*\*/g, '^');
  // "x^(2)" and "x^2" are the same power; only a single plain number or letter loses its brackets.
  text = text.replace(/\^\(\s*(-?(?:\d+|[a-z]))\s*\)/g, '^$1');
  text = text.replace(/\s+/g, ' ');
  text = text.replace(new RegExp(String.raw`\s*(${OPERATOR})\s*`, 'g'), '$1');
  text = text.replace(/([([{])\s+/g, '$1').replace(/\s+([)\]}])/g, '$1');
  text = text.replace(/\s+([,.;:?!%])/g, '$1');
  text = text.replace(/;(?=\S)/g, '; ');
  // Lists are written "1, 2, 3" and "1,2,3"; a thousands separator ("1,000") keeps its comma tight.
  text = text.replace(/,(?=\S)/g, (_comma: string, offset: number, whole: string) =>
    /\d/.test(whole[offset - 1] ?? '') && /^\d{3}(?!\d)/.test(whole.slice(offset + 1)) ? ',' : ', ',
  );
  text = text.trim().replace(/[.;,]+$/, '').trim();
  return text;
}

const SUPERSCRIPT_RUN = new RegExp(`[${Object.keys(SUPERSCRIPTS).join('')}]+`, 'g');

/** "x²" → "x^2", "x⁻¹" → "x^-1", "eⁱᵗ"-style runs of several symbols → "^(...)". */
function rewriteSuperscripts(text: string): string {
  return text.replace(SUPERSCRIPT_RUN, (sequence) => {
    const plain = Array.from(sequence, (c) => SUPERSCRIPTS[c] ?? c).join('');
    return /^-?(?:\d+|[a-z])$/.test(plain) ? `^${plain}` : `^(${plain})`;
  });
}

/** Unicode full case folding for the cases `toLowerCase` leaves apart. */
function foldCase(text: string): string {
  return text.toLowerCase().replace(/ß/g, 'ss').replace(/ς/g, 'σ').replace(/ı/g, 'i');
}
