import { Rational } from '../core/rational.js';
import type { SolverResult, Step } from '../types.js';
import type { ProblemContext } from './context.js';
import { m } from './context.js';
import { usesEveryNumber } from './word-support.js';

const NUMBER_WORDS: Readonly<Record<string, number>> = { once: 1, twice: 2, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
const PRIMES = new Set([2, 3, 5, 7, 11, 13, 17, 19]);

interface Experiment {
  readonly description: string;
  /** Every equally likely outcome. */
  readonly outcomes: readonly string[][];
  readonly event: (outcome: readonly string[]) => boolean;
  readonly eventText: string;
  /** Numbers of the text the reading used (so an unread number refuses the problem). */
  readonly used: readonly number[];
}

/**
 * Basic probability with equally likely outcomes: a fair die (a face, greater/less than, at least/at
 * most, even, odd, prime, a multiple of), a fair coin tossed n times (heads/tails every time, at least
 * one, exactly k) and a bag of coloured items (one drawn). The sample space is listed and the
 * favourable outcomes counted; the check counts the complementary event too and requires the two to
 * make up the whole space. A problem the reading does not cover is not claimed.
 */
export function solveProbability(ctx: ProblemContext): SolverResult {
  if (!/\bprobability\b|\bchance\b/.test(ctx.lower)) return undefined;
  // Events joined or negated ("not a 6", "red or blue", "both times") are read by no template here.
  if (/\b(?:not|or|both|either|neither|nor|without|except|and then|replaced|replacement)\b|n't\b/.test(ctx.lower)) {
    return { solved: false, inScope: false, reason: 'a compound or negated event: the engine reads single events only' };
  }
  const experiment = die(ctx.lower) ?? coin(ctx.lower) ?? bag(ctx.lower);
  // Number words the reading itself consumed ("six-sided", "tossed twice", "exactly two heads") are accounted for.
  const accounted = ctx.lower
    .replace(/\bsix-sided\b/g, '')
    .replace(/\b(?:tossed|flipped|thrown)\s+(?:once|twice|one|two|three|four|five|six|seven|eight|nine|ten)\b/g, '')
    .replace(/\bexactly (?:one|two|three|four|five) (?:heads?|tails?)\b/g, '');
  if (experiment === undefined || !usesEveryNumber(accounted, experiment.used)) return undefined;
  const total = experiment.outcomes.length;
  const favourable = experiment.outcomes.filter(experiment.event);
  const against = experiment.outcomes.filter((o) => !experiment.event(o)).length;
  if (favourable.length + against !== total) throw new Error('the event and its complement do not cover the sample space');
  const p = Rational.of(favourable.length, total);
  const steps: Step[] = [
    { title: 'List the equally likely outcomes', detail: `${experiment.description}: ${total} outcome${total === 1 ? '' : 's'}${total <= 16 ? ` (${experiment.outcomes.map((o) => o.join('')).join(', ')})` : ''}.` },
    { title: `Count the outcomes where ${experiment.eventText}`, detail: `${favourable.length}${favourable.length > 0 && favourable.length <= 16 ? ` (${favourable.map((o) => o.join('')).join(', ')})` : ''}` },
    { title: 'Divide favourable by total', detail: m(`P = \\frac{${favourable.length}}{${total}} = ${p.toTex()}`) },
  ];
  const decimal = p.toTerminatingDecimal(6);
  return {
    solved: true,
    category: 'probability',
    intent: 'evaluate',
    problem: `P(${experiment.eventText}) for ${experiment.description}`,
    steps,
    finalAnswer: p.isInteger ? p.toString() : `${p.toString()}${decimal !== undefined ? ` = ${decimal}` : ` ≈ ${p.toNumber().toFixed(4)}`}`,
    answer: { kind: 'number', value: p.toNumber(), exact: p.toString() },
    verification: `the ${favourable.length} favourable and ${against} other outcomes make up all ${total}`,
  };
}

function die(t: string): Experiment | undefined {
  const dieMatch = /\b(?:(?:six|6)-sided |fair |ordinary |standard )*(?:die|dice)\b/.exec(t);
  if (dieMatch === null || /\b(two|2|pair of) dice\b|\bdice are\b/.test(t) || !/\brolled|\bthrown|\broll\b|\bthrow\b/.test(t)) return undefined;
  // "6-sided" writes a number the reading accounts for; "six-sided" does not.
  const sides = /\b6-sided/.test(t) ? [6] : [];
  const faces = [1, 2, 3, 4, 5, 6].map((f) => [String(f)]);
  const face = (o: readonly string[]): number => Number(o[0]);
  const read = (pattern: RegExp): number | undefined => {
    const match = pattern.exec(t);
    return match === null ? undefined : Number(match[1]);
  };
  const cases: [RegExp, (n: number) => (f: number) => boolean, (n: number) => string][] = [
    [/(?:greater|more|higher|bigger) than (\d+)/, (n) => (f) => f > n, (n) => `the score is greater than ${n}`],
    [/(?:less|lower|smaller|fewer) than (\d+)/, (n) => (f) => f < n, (n) => `the score is less than ${n}`],
    [/at least (?:a )?(\d+)/, (n) => (f) => f >= n, (n) => `the score is at least ${n}`],
    [/at most (?:a )?(\d+)/, (n) => (f) => f <= n, (n) => `the score is at most ${n}`],
    [/a multiple of (\d+)/, (n) => (f) => f % n === 0, (n) => `the score is a multiple of ${n}`],
    [/(?:rolling|getting|scoring|throwing|of) an? (\d+)\b/, (n) => (f) => f === n, (n) => `the score is ${n}`],
  ];
  for (const [pattern, predicate, text] of cases) {
    const n = read(pattern);
    if (n !== undefined) return { description: 'one roll of a fair six-sided die', outcomes: faces, event: (o) => predicate(n)(face(o)), eventText: text(n), used: [...sides, n] };
  }
  const kinds: [RegExp, (f: number) => boolean, string][] = [
    [/an even number/, (f) => f % 2 === 0, 'the score is even'],
    [/an odd number/, (f) => f % 2 === 1, 'the score is odd'],
    [/a prime( number)?/, (f) => PRIMES.has(f), 'the score is prime'],
  ];
  const kind = kinds.find(([pattern]) => pattern.test(t));
  return kind === undefined ? undefined : { description: 'one roll of a fair six-sided die', outcomes: faces, event: (o) => kind[1](face(o)), eventText: kind[2], used: sides };
}

function coin(t: string): Experiment | undefined {
  if (!/\bfair coin\b|\ba coin\b/.test(t)) return undefined;
  const timesMatch = /\b(?:tossed|flipped|thrown)\s+(\d+|once|twice|one|two|three|four|five|six|seven|eight|nine|ten)(?:\s+times)?\b/.exec(t);
  const tosses = timesMatch === null ? 1 : (NUMBER_WORDS[timesMatch[1]!] ?? Number(timesMatch[1]));
  if (!Number.isInteger(tosses) || tosses < 1 || tosses > 10) return undefined;
  const used = timesMatch !== null && /^\d+$/.test(timesMatch[1]!) ? [tosses] : [];
  let outcomes: string[][] = [[]];
  for (let i = 0; i < tosses; i++) outcomes = outcomes.flatMap((o) => [[...o, 'H'], [...o, 'T']]);
  const description = `${tosses === 1 ? 'one toss' : `${tosses} tosses`} of a fair coin`;
  const side = /\bheads?\b/.test(t) ? 'H' : /\btails?\b/.test(t) ? 'T' : undefined;
  if (side === undefined || (/\bheads?\b/.test(t) && /\btails?\b/.test(t))) return undefined;
  const name = side === 'H' ? 'heads' : 'tails';
  const count = (o: readonly string[]): number => o.filter((s) => s === side).length;
  if (/every time|each time|all (?:heads|tails)|(?:heads|tails) (?:on )?(?:every|each|all)|only (?:heads|tails)/.test(t) || (tosses === 1 && /(?:getting|of|lands on|landing on|showing) (?:a )?(?:heads?|tails?)\b/.test(t))) {
    return { description, outcomes, event: (o) => count(o) === tosses, eventText: `every toss is ${name}`, used };
  }
  if (/at least one (?:head|tail)/.test(t)) return { description, outcomes, event: (o) => count(o) >= 1, eventText: `at least one toss is ${name}`, used };
  if (/\bno (?:heads|tails)\b/.test(t)) return { description, outcomes, event: (o) => count(o) === 0, eventText: `no toss is ${name}`, used };
  const exactly = /exactly (\d+|one|two|three|four|five) (?:heads?|tails?)/.exec(t);
  if (exactly !== null) {
    const k = NUMBER_WORDS[exactly[1]!] ?? Number(exactly[1]);
    return { description, outcomes, event: (o) => count(o) === k, eventText: `exactly ${k} tosses are ${name}`, used: /^\d+$/.test(exactly[1]!) ? [...used, k] : used };
  }
  return undefined;
}

function bag(t: string): Experiment | undefined {
  const holds = /\b(?:bag|box|jar|urn)\s+(?:holds|contains|has)\s+(.*?)(?:\.|$)/.exec(t);
  if (holds === null || !/\b(?:one|a single|an? \w+) (?:is|are)? ?(?:picked|drawn|chosen|taken|selected)|\bat random\b/.test(t)) return undefined;
  const groups = [...holds[1]!.matchAll(/(\d+)\s+([a-z]+)/g)].map((g) => ({ count: Number(g[1]), colour: g[2]! }));
  if (groups.length < 2 || groups.length > 8 || groups.some((g) => g.count > 200) || new Set(groups.map((g) => g.colour)).size !== groups.length) return undefined;
  const asked = /(?:probability|chance)\s+(?:that\s+it\s+is|of\s+(?:picking|drawing|choosing|getting|taking|selecting))\s+(?:an?\s+)?([a-z]+)/.exec(t)?.[1];
  if (asked === undefined || !groups.some((g) => g.colour === asked)) return undefined;
  const outcomes = groups.flatMap((g) => Array.from({ length: g.count }, (_, i) => [`${g.colour}${i + 1} `]));
  return {
    description: `one item drawn from ${groups.map((g) => `${g.count} ${g.colour}`).join(' and ')}`,
    outcomes,
    event: (o) => o[0]!.replace(/\d+ $/, '') === asked,
    eventText: `it is ${asked}`,
    used: groups.map((g) => g.count),
  };
}
