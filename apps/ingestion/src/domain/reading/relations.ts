import type { OcrAlternative, OcrBox, OcrChar, OcrLine } from '@openpaw/providers/ocr';
import { characterHeight } from './line-geometry.js';

/** Relations printed as a chevron over a bar. */
const WITH_BAR = new Set(['≤', '≥', '⩽', '⩾', '≦', '≧']);
/** Relations printed as a chevron alone. */
const WITHOUT_BAR = new Set(['<', '>']);
const isRelation = (text: string): boolean => WITH_BAR.has(text) || WITHOUT_BAR.has(text);

/** Ink no taller than this share of its width is a bar, not a stroke of a chevron. */
const FLAT = 0.25;
/** A chevron is at least this share of its width tall ("<" and ">" are about as tall as wide). */
const CHEVRON = 0.4;
/** A chevron stands at least this share of the line's character height (KaTeX's ">" 0.7 of a digit). */
const CHEVRON_HEIGHT = 0.5;
/** A bar under a chevron spans this share of the chevron's width, at least and at most. */
const BAR_SPAN = [0.6, 1.4] as const;

const width = (b: OcrBox): number => b.x1 - b.x0;
const height = (b: OcrBox): number => b.y1 - b.y0;
/** The share of the narrower box's columns two boxes share. */
const sharedColumns = (a: OcrBox, b: OcrBox): number => Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) / Math.max(1, Math.min(width(a), width(b)));

/**
 * What the ink of a relation's columns shows (issue 25): a chevron with a flat bar just below it ("≥"),
 * a chevron alone (">"), or neither (undefined: the ink does not tell).
 */
export function relationShape(box: OcrBox, ink: readonly OcrBox[], charHeight?: number): 'with bar' | 'without bar' | undefined {
  const own = ink.filter((b) => sharedColumns(b, box) >= 0.5 && b.y1 > box.y0 - height(box) && b.y0 < box.y1 + height(box));
  const chevron = own.reduce<OcrBox | undefined>((tallest, b) => (tallest === undefined || height(b) > height(tallest) ? b : tallest), undefined);
  if (chevron === undefined || height(chevron) < CHEVRON * width(chevron)) return undefined;
  // A piece of a chevron (a tilted copy's broken stroke) is no chevron: what lies around it says nothing.
  if (charHeight !== undefined && height(chevron) < CHEVRON_HEIGHT * charHeight) return undefined;
  const rest = own.filter((b) => b !== chevron);
  if (rest.length === 0) return 'without bar';
  const bars = rest.filter((b) => height(b) <= Math.max(2, FLAT * width(b)) && b.y0 >= chevron.y1 - 1 && b.y0 - chevron.y1 <= height(chevron) / 2 && width(b) >= BAR_SPAN[0] * width(chevron) && width(b) <= BAR_SPAN[1] * width(chevron));
  return bars.length === 1 && rest.length === 1 ? 'with bar' : undefined;
}

/**
 * A relation's readings weighed against its ink (issue 25): PP-OCR splits a "≥" between "≥" and ">"
 * (0.60 / 0.28 on a clean original), and once read ">" at 0.94 a "≥" whose bar lay a few pixels below.
 * The bar is separate ink, so the ink tells the two apart: the relations the ink rules out are dropped
 * and the other readings keep their shares of what is left (the reader's probability given the ink).
 * Where the ink does not tell, the character stays as read. Where it rules out the relation the reader
 * read and every relation it listed (">" read at 0.99 over a chevron with its bar: seed 7919, a noisy
 * copy of "8n − 31 ≥ 41"), the reading contradicts the ink: nothing the reader gave is left, so the
 * character keeps no confidence and the reading is refused, never read as the relation the ink rules out.
 */
export function relationsFromInk(line: OcrLine): OcrLine {
  const ink = line.inkBoxes;
  if (ink === undefined || !line.chars.some((c) => isRelation(c.text) || (c.alternatives ?? []).some((a) => isRelation(a.text)))) return line;
  const charHeight = characterHeight(line.chars);
  let changed = false;
  const chars = line.chars.map((c): OcrChar => {
    const readings: OcrAlternative[] = [{ text: c.text, confidence: c.confidence }, ...(c.alternatives ?? [])];
    if (c.box === undefined || c.ownInk !== true || !readings.some((r) => isRelation(r.text))) return c;
    const shape = relationShape(c.box, ink, charHeight);
    if (shape === undefined) return c;
    // The ink rules out only the other kind of relation: what it says of other readings ("√" for a root's tick) is not asked here.
    const ruledOut = shape === 'with bar' ? WITHOUT_BAR : WITH_BAR;
    const kept = readings.filter((r) => !ruledOut.has(r.text)).sort((a, b) => b.confidence - a.confidence);
    if (!kept.some((r) => isRelation(r.text)) && ruledOut.has(c.text)) {
      changed = true;
      return { ...c, confidence: 0, alternatives: [], unlisted: 0 };
    }
    if (!kept.some((r) => isRelation(r.text)) || kept.length === readings.length) return c;
    const mass = kept.reduce((sum, r) => sum + r.confidence, 0) + (c.unlisted ?? 0);
    const [first, ...others] = kept as [OcrAlternative, ...OcrAlternative[]];
    changed = true;
    return { ...c, text: first.text, confidence: first.confidence / mass, alternatives: others.map((o) => ({ text: o.text, confidence: o.confidence / mass })), ...(c.unlisted === undefined ? {} : { unlisted: c.unlisted / mass }) };
  });
  if (!changed) return line;
  return { ...line, chars, text: chars.map((c) => c.text).join(''), confidence: Math.min(...chars.filter((c) => c.text !== '').map((c) => c.confidence)) };
}
