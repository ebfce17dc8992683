/**
 * Function names the engine reads in problem text. Apart from `mathjs.ts` so that readers of text
 * (the stray-token check, the normaliser behind `@openpaw/maths/screen`) need not load mathjs.
 */
export const KNOWN_FUNCTIONS = new Set(['sqrt', 'cbrt', 'abs', 'exp', 'log', 'log10', 'log2', 'sin', 'cos', 'tan', 'sec', 'csc', 'cot', 'asin', 'acos', 'atan']);
