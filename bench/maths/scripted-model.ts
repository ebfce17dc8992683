import type { Label } from './labels.js';

/**
 * A scripted model's final answer for a labelled problem, as a model writes it (LaTeX delimiters,
 * "or", units left out), either right or deliberately wrong (the label perturbed so the answer is
 * no longer true). Which problems get a wrong answer is decided by the caller.
 */
export function modelAnswer(label: Label, wrong: boolean): string | undefined {
  const fmt = (n: number): string => String(Number(n.toPrecision(12)));
  switch (label.kind) {
    case 'roots': {
      const roots = label.roots.map((r, i) => (wrong && i === 0 ? { re: r.re + 1, im: r.im } : r));
      const text = roots.map((r) => (r.im === 0 ? fmt(r.re) : `${fmt(r.re)} ${r.im < 0 ? '-' : '+'} ${fmt(Math.abs(r.im))}i`));
      return text.map((t) => `\\(x = ${t}\\)`).join(' or ');
    }
    case 'number':
      return `\\(${fmt(wrong ? label.value * 1.1 + 1 : label.value)}\\)`;
    case 'assignment':
      return Object.entries(label.values)
        .map(([k, v], i) => `${k} = ${fmt(wrong && i === 0 ? v + 1 : v)}`)
        .join(', ');
    case 'inequality':
      return `x ${label.relation} ${fmt(wrong ? label.bound + 1 : label.bound)}`;
    case 'interval_set': {
      // Wrong: the first finite end moved by one.
      let moved = !wrong;
      const end = (e: { value: number; closed: boolean }): number => {
        if (moved) return e.value;
        moved = true;
        return e.value + 1;
      };
      return label.intervals
        .map(({ from, to }) => {
          const [low, high] = [from === undefined ? undefined : { ...from, value: end(from) }, to === undefined ? undefined : { ...to, value: end(to) }];
          const sign = (closed: boolean): string => (closed ? '\\le' : '<');
          if (low === undefined) return high === undefined ? 'every real number' : `x ${sign(high.closed)} ${fmt(high.value)}`;
          if (high === undefined) return `x ${low.closed ? '\\ge' : '>'} ${fmt(low.value)}`;
          return low.value === high.value ? `x = ${fmt(low.value)}` : `${fmt(low.value)} ${sign(low.closed)} x ${sign(high.closed)} ${fmt(high.value)}`;
        })
        .map((t) => `\\(${t}\\)`)
        .join(' or ');
    }
    case 'expression':
      return `${wrong ? `${label.expression} + ${label.variable}` : label.expression}${label.upToConstant === true ? ' + C' : ''}`;
    case 'limit':
      if (typeof label.value === 'number') return fmt(wrong ? label.value + 1 : label.value);
      return wrong ? '0' : label.value === 'does_not_exist' ? 'The limit does not exist' : label.value === 'infinity' ? '\\(\\infty\\)' : '\\(-\\infty\\)';
    case 'ratio':
      return label.parts.map((p, i) => fmt(wrong && i === 0 ? p + 1 : p)).join(' : ');
    case 'point':
      return `(${label.coordinates.map((p, i) => fmt(wrong && i === 0 ? p + 1 : p)).join(', ')})`;
    case 'no_solution':
      return wrong ? 'x = 0' : 'no solution';
    case 'all_values':
      return wrong ? 'x = 0' : 'every real number';
  }
}
