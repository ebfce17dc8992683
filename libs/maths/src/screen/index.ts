import { normaliseMaths } from '../text/normalise.js';

/**
 * What every mathematical statement the engine reads in prose holds (`mathStatements`): a digit, an
 * operator, a relation after a letter, or a function applied. Text without one holds no maths.
 */
export const MATHS_SIGN = /[0-9]|[+\-*/^]|[a-z]\s*[=<>]|[a-z]\(/i;

/**
 * False only when the engine would certainly find no maths in `text` (`findMaths` is undefined): it
 * normalises the text as the engine does (operator words become signs) and looks for a sign of maths.
 * It loads no maths engine (mathjs: ~110 MB and seconds of synchronous module evaluation), so a
 * caller can skip loading the engine for prose. True does not mean there is maths.
 */
export function mayHoldMaths(text: string): boolean {
  return MATHS_SIGN.test(normaliseMaths(text));
}
