import { createRequire } from 'node:module';

/** The part of nerdamer the engine uses (see docs/adr: nerdamer was chosen over algebrite on the bench). */
interface NerdamerExpression {
  toString(): string;
}
type Nerdamer = (expression: string) => NerdamerExpression;

// nerdamer is CommonJS and registers its add-ons (Algebra, Calculus) on the core when required.
const require = createRequire(import.meta.url);
const nerdamer = require('nerdamer') as Nerdamer & { clear(which: string): void; flush(): void };
require('nerdamer/Algebra.js');
require('nerdamer/Calculus.js');

/**
 * An antiderivative of `expression` (mathjs syntax, natural `log`) with respect to `variable`, in
 * mathjs syntax; undefined when nerdamer leaves the integral unevaluated or fails. Callers check the
 * result by differentiating it: nerdamer's answer is never trusted as is.
 */
export function antiderivative(expression: string, variable: string): string | undefined {
  try {
    const result = nerdamer(`integrate(${expression}, ${variable})`).toString();
    // nerdamer keeps expressions in a global store unless told otherwise; nothing is kept between calls.
    nerdamer.flush();
    if (/integrate|\bSi\b|\bCi\b|\bEi\b|erf/.test(result)) return undefined;
    return result;
  } catch {
    return undefined;
  }
}

/** The derivative of `expression` with respect to `variable`, in mathjs syntax; undefined when nerdamer fails. */
export function derivativeText(expression: string, variable: string): string | undefined {
  try {
    const result = nerdamer(`diff(${expression}, ${variable})`).toString();
    nerdamer.flush();
    return /diff/.test(result) ? undefined : result;
  } catch {
    return undefined;
  }
}
