import type { OcrBox, OcrChar } from '../port.js';

/** A character the line read gives less than this is read again on its own (`secondLookBox`, `fuseSecondLook`). */
export const SECOND_LOOK_BELOW = 0.98;
/** The second look must be at least this sure of its one character to count. */
const SECOND_LOOK_SURE = 0.98;
/**
 * Room above and below the glyph, in its larger side, for each second look: two margins show the glyph
 * at two sizes (about 70 % and 50 % of the recogniser's 48 px). Beside it the room stays `SIDE_MARGIN`,
 * so a look never takes in a neighbour.
 */
export const SECOND_LOOK_MARGINS = [0.2, 0.5] as const;
const SIDE_MARGIN = 0.2;

/**
 * The crop a doubted glyph is read again from (issue 25): its ink box with room around it, as tall as
 * its larger side plus `margin` above and below, so a bar ("−") keeps its place in the middle. Scaled to
 * the recogniser's 48 px, a small glyph (an exponent printed at 60 % size, read at a third of the line's
 * height) is then read at a size the model was trained on, and out of reach of its neighbours' context.
 */
export function secondLookBox(glyph: OcrBox, margin: number, width: number, height: number): OcrBox {
  const side = Math.max(glyph.x1 - glyph.x0, glyph.y1 - glyph.y0);
  const beside = Math.max(1, Math.round(SIDE_MARGIN * side));
  const middle = (glyph.y0 + glyph.y1) / 2;
  const half = side / 2 + Math.max(1, Math.round(margin * side));
  return {
    x0: Math.max(0, glyph.x0 - beside),
    y0: Math.max(0, Math.floor(middle - half)),
    x1: Math.min(width, glyph.x1 + beside),
    y1: Math.min(height, Math.ceil(middle + half)),
  };
}

/**
 * PP-OCRv4's Chinese dictionary holds characters drawn as the same strokes as maths signs: a bar alone
 * is as much "一" as "-", a cross as much "十" as "+". Out of a line's context a look splits a sign's
 * probability between them; they are one reading of the ink.
 */
const SAME_STROKES: Readonly<Record<string, string>> = { '一': '-', '—': '-', '－': '-', '−': '-', '十': '+', '＋': '+' };
const strokes = (text: string): string => SAME_STROKES[text] ?? text.normalize('NFKC');

/** One character however spelled: NFKC folds a superscript "²" to the "2" a glyph read alone is (where it sits is the ink's business). */
const sameReading = (a: string, b: string): boolean => strokes(a) === strokes(b);

/**
 * The one character a look read, at or above `SECOND_LOOK_SURE` once its spellings of the same strokes
 * are taken together; undefined when it read none, several, or was unsure.
 */
function sureOne(look: readonly OcrChar[]): OcrChar | undefined {
  const read = look.filter((c) => c.text.trim() !== '');
  if (read.length !== 1) return undefined;
  const [only] = read as [OcrChar];
  const same = (only.alternatives ?? []).filter((a) => sameReading(a.text, only.text));
  const confidence = same.reduce((sum, a) => sum + a.confidence, only.confidence);
  if (confidence < SECOND_LOOK_SURE) return undefined;
  return { ...only, text: strokes(only.text), confidence: Math.min(1, confidence), alternatives: (only.alternatives ?? []).filter((a) => !sameReading(a.text, only.text)) };
}

/**
 * The views of one glyph made one (issue 25): the line read (in context, at the line's scale) and the
 * glyph read alone at the model's scale, once per margin (`SECOND_LOOK_MARGINS`). The second looks
 * decide only where views agree, each look sure (≥ 98 %) of exactly one character:
 * - the closer look reads a character the line read weighed (its reading or a listed alternative); or
 * - every look reads the same character, and the glyph's ink is its own (`exclusiveInk`: no other
 *   character of the line claims it, so the looks cannot be reading a neighbour twice). The line read
 *   then listed nothing of it: it read the glyph at a size it was not trained on (a raised exponent read
 *   "*", an italic x read "c"), and two sizes of the glyph alone outvote it.
 * The glyph then takes the looks' reading, their lower probability and its alternatives. Anywhere else
 * (the closer look unsure, reading several characters or none, any look sure of another character, or
 * the looks disagreeing without the line read's listing) the line read stands as it
 * was, doubts and all: a disagreement never makes a reading surer.
 */
export function fuseSecondLook(first: OcrChar, looks: readonly (readonly OcrChar[])[], exclusiveInk: boolean): OcrChar {
  const sure = looks.map(sureOne);
  const closer = sure[0];
  // A look sure of another character is a disagreement, whichever look it is.
  if (closer === undefined || sure.some((look) => look !== undefined && !sameReading(look.text, closer.text))) return first;
  const weighed = [first.text, ...(first.alternatives ?? []).map((a) => a.text)].find((t) => sameReading(t, closer.text));
  const unanimous = exclusiveInk && sure.every((look) => look !== undefined && sameReading(look.text, closer.text));
  if (weighed === undefined && !unanimous) return first;
  const weakest = sure.reduce<OcrChar>((low, look) => (look !== undefined && look.confidence < low.confidence ? look : low), closer);
  // The line read's spelling stays when it is the same character ("²" keeps its superscript spelling for the geometry).
  const text = sameReading(closer.text, first.text) ? first.text : (weighed ?? closer.text);
  return {
    ...first,
    text,
    confidence: weakest.confidence,
    alternatives: (weakest.alternatives ?? []).filter((a) => a.text !== ''),
    ...(weakest.unlisted === undefined ? {} : { unlisted: weakest.unlisted }),
  };
}
