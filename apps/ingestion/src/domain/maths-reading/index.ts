export { calibrated, DEFAULT_MATHS_READING, judgeReading, type MathsReadingOutcome, type MathsReadingSettings, type Reading, readMaths } from './read-maths.js';
export { confusion, digitReadAsLetter, isMathsWord, lostExponent, symbolInsideMaths } from './token-checks.js';
