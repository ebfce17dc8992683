export { recoverExponents } from './exponent-recovery.js';
export { calibrated, DEFAULT_MATHS_READING, judgeReading, type MathsReadingOutcome, type MathsReadingSettings, type Reading, readMaths } from './read-maths.js';
export { confusion, crowdedDigits, digitReadAsLetter, falseNumericEquation, isMathsWord, lostExponent, raisedSymbols, symbolInsideMaths, unevenDigits } from './token-checks.js';
export { inkWord, withInkBoxes } from './ink-boxes.js';
