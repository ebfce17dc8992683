import type { Unit } from 'mathjs';
import { mj } from '../core/mathjs.js';
import type { EngineSolution, SolverResult } from '../types.js';
import type { ProblemContext } from './context.js';
import { m } from './context.js';
import { approx, usesEveryNumber } from './word-support.js';

const N = '(\\d+(?:\\.\\d+)?)';
const SPEED_UNITS: Record<string, string> = { 'km/h': 'km/h', kmh: 'km/h', kph: 'km/h', 'kilometres per hour': 'km/h', 'kilometers per hour': 'km/h', mph: 'mi/h', 'miles per hour': 'mi/h', 'm/s': 'm/s', 'metres per second': 'm/s', 'meters per second': 'm/s' };
const DISTANCE_UNITS: Record<string, string> = { km: 'km', kilometres: 'km', kilometers: 'km', kilometre: 'km', kilometer: 'km', miles: 'mi', mile: 'mi', m: 'm', metres: 'm', meters: 'm' };
const TIME_UNITS: Record<string, string> = { hours: 'h', hour: 'h', h: 'h', hrs: 'h', hr: 'h', minutes: 'minute', minute: 'minute', min: 'minute', mins: 'minute', seconds: 's', second: 's', s: 's' };

const SPEED = new RegExp(`${N}\\s*(${Object.keys(SPEED_UNITS).map(escape).join('|')})\\b`, 'g');
const DISTANCE = new RegExp(`${N}\\s*(${Object.keys(DISTANCE_UNITS).join('|')})\\b(?!\\s*(?:/|per))`, 'g');
const TIME = new RegExp(`${N}\\s*(${Object.keys(TIME_UNITS).join('|')})\\b`, 'g');
/** The unit the answer is asked in: "in km/h", "in minutes" (a unit straight after "in", never "in 15 s"). */
const ASKED_UNIT = new RegExp(`\\b(?:in|into)\\s+(${[...Object.keys(SPEED_UNITS).map(escape), ...Object.keys(DISTANCE_UNITS), ...Object.keys(TIME_UNITS)].join('|')})(?![\\w/])`);

/**
 * Speed = distance ÷ time and its rearrangements, with units through mathjs (2 hours 30 minutes,
 * km with minutes, m/s). The question word decides the unknown; every number must be one of the
 * two given quantities.
 */
export function solveSpeedDistanceTime(ctx: ProblemContext): SolverResult {
  const t = ctx.lower;
  if (!/\b(speed|how fast|how far|distance|how long|time|travel|drive|drives|walks|runs|cycles|flies|journey)/.test(t)) return undefined;
  const speeds = [...t.matchAll(SPEED)];
  const speedSpans = speeds.map((s) => [s.index, s.index + s[0].length]);
  const outside = (i: number): boolean => !speedSpans.some(([a, b]) => i >= a! && i < b!);
  const distances = [...t.matchAll(DISTANCE)].filter((d) => outside(d.index));
  const times = [...t.matchAll(TIME)].filter((d) => outside(d.index));
  const used = [...speeds, ...distances, ...times].map((x) => Number(x[1]));
  if (!usesEveryNumber(t, used)) return undefined;
  const asksSpeed = /what (?:is|was) (?:the|its|his|her|their) (?:average )?speed|how fast|find (?:the|its|his|her) (?:average )?speed|average speed\?|at what speed|calculate the (?:average )?speed/.test(t);
  const asksDistance = /how far|what distance|find the distance|how many (?:km|kilometres|kilometers|miles|metres|meters)/.test(t);
  const asksTime = /how long|how much time|how many (?:hours|minutes|seconds)|find the time|what time does it take/.test(t);
  if ([asksSpeed, asksDistance, asksTime].filter(Boolean).length !== 1) return undefined;
  // The answer in the unit asked for ("find its speed in km/h" for metres and seconds), or refused when that is not a unit of the quantity asked.
  const askedWord = ASKED_UNIT.exec(t)?.[1];
  const asked = askedWord === undefined ? undefined : ((asksSpeed ? SPEED_UNITS : asksDistance ? DISTANCE_UNITS : TIME_UNITS)[askedWord] ?? null);
  if (asked === null) return { solved: false, inScope: true, category: 'speed_distance_time', reason: `the answer is asked in ${askedWord ?? ''}, which is not a unit of the ${asksSpeed ? 'speed' : asksDistance ? 'distance' : 'time'}` };
  const time = times.length === 0 ? undefined : times.map((x) => mj.unit(Number(x[1]), TIME_UNITS[x[2]!])).reduce((a, b) => mj.add<Unit>(a, b));
  const timeText = times.map((x) => `${x[1]} ${x[2]}`).join(' ');
  if (asksSpeed && distances.length === 1 && times.length >= 1 && speeds.length === 0 && time !== undefined) {
    const d = distances[0]!;
    const distance = mj.unit(Number(d[1]), DISTANCE_UNITS[d[2]!]);
    const unit = asked ?? (DISTANCE_UNITS[d[2]!] === 'mi' ? 'mi/h' : DISTANCE_UNITS[d[2]!] === 'm' && time.toNumber('s') < 3600 ? 'm/s' : 'km/h');
    const hours = time.toNumber(unit === 'm/s' ? 's' : 'h');
    const speed = mj.divide(distance, time) as typeof distance;
    const value = speed.toNumber(unit);
    return done('speed', `${d[0]} in ${timeText}`, [
      { title: 'Write the formula', detail: m('\\text{speed} = \\frac{\\text{distance}}{\\text{time}}') },
      { title: 'Express the time in one unit', detail: `${timeText} = ${approx(hours)} ${unit === 'm/s' ? 's' : 'h'}` },
      { title: 'Divide', detail: m(`\\frac{${d[1]}\\,\\text{${DISTANCE_UNITS[d[2]!]}}}{${approx(hours)}\\,\\text{${unit === 'm/s' ? 's' : 'h'}}} = ${approx(value)}\\,\\text{${unit.replace('mi/h', 'mph')}}`) },
    ], value, unit);
  }
  if (asksDistance && speeds.length === 1 && times.length >= 1 && distances.length === 0 && time !== undefined) {
    const s = speeds[0]!;
    const speedUnit = SPEED_UNITS[s[2]!]!;
    const speed = mj.unit(Number(s[1]), speedUnit);
    const distanceUnit = asked ?? (speedUnit === 'mi/h' ? 'mi' : speedUnit === 'm/s' ? 'm' : 'km');
    const value = mj.multiply<Unit>(speed, time).toNumber(distanceUnit);
    return done('distance', `${s[0]} for ${timeText}`, [
      { title: 'Write the formula', detail: m('\\text{distance} = \\text{speed} \\times \\text{time}') },
      { title: 'Multiply (time in the speed\'s unit)', detail: `${s[1]} ${s[2]} × ${timeText} = ${approx(value)} ${distanceUnit === 'mi' ? 'miles' : distanceUnit}` },
    ], value, distanceUnit);
  }
  if (asksTime && speeds.length === 1 && distances.length === 1 && times.length === 0) {
    const s = speeds[0]!;
    const d = distances[0]!;
    const speed = mj.unit(Number(s[1]), SPEED_UNITS[s[2]!]);
    const distance = mj.unit(Number(d[1]), DISTANCE_UNITS[d[2]!]);
    const timeUnit = asked ?? (SPEED_UNITS[s[2]!] === 'm/s' ? 's' : 'h');
    const value = (mj.divide(distance, speed) as typeof speed).toNumber(timeUnit);
    const minutes = timeUnit === 'h' && !Number.isInteger(value) ? ` (${approx(value * 60)} minutes)` : '';
    return done('time', `${d[0]} at ${s[0]}`, [
      { title: 'Write the formula', detail: m('\\text{time} = \\frac{\\text{distance}}{\\text{speed}}') },
      { title: 'Divide', detail: `${d[1]} ${d[2]} ÷ ${s[1]} ${s[2]} = ${approx(value)} ${timeUnit === 'h' ? 'hours' : timeUnit === 'minute' ? 'minutes' : 'seconds'}${minutes}` },
    ], value, timeUnit, minutes);
  }
  return undefined;

  function done(what: string, problem: string, steps: EngineSolution['steps'], value: number, unit: string, note = ''): EngineSolution {
    const label = unit === 'mi/h' ? 'mph' : unit === 'mi' ? 'miles' : unit === 'h' ? 'hours' : unit === 'minute' ? 'minutes' : unit;
    return {
      solved: true,
      category: 'speed_distance_time',
      intent: 'evaluate',
      problem: `${what}: ${problem}`,
      steps,
      finalAnswer: `${approx(value)} ${label}${note}`,
      answer: { kind: 'number', value, unit },
      verification: 'units carried through mathjs and the result converted back',
    };
  }
}

function escape(s: string): string {
  return s.replace(/[/]/g, '\\/');
}
