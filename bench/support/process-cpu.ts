import { readdirSync, readFileSync } from 'node:fs';

/** The label of the bench process itself (its HTTP clients and any wire servers it runs). */
export const BENCH_PROCESS = 'bench (clients, wire servers)';

/** A figure of one process read from /proc (undefined when it cannot be read). */
type ProcReading = (pid: string, stat: readonly string[]) => number | undefined;

/**
 * A /proc figure summed by name over this process's descendants (the services, nats-server,
 * PostgreSQL and its backends) and the bench itself: a service is named after its `dist/apps/<name>`
 * entry point, PostgreSQL's backends are summed as `postgres`.
 */
function byProcess(read: ProcReading): Map<string, number> {
  const procs = new Map<number, { parent: number; name: string; value: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const app = cmd.find((part) => part.includes('dist/apps/'))?.replace(/.*dist\/apps\/([^/]+).*/, '$1');
      const name = app ?? stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const value = read(entry, fields);
      if (value !== undefined) procs.set(Number(entry), { parent: Number(fields[1]), name, value });
    } catch {
      // exited meanwhile
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 10; hops += 1) {
      if (p === process.pid) return true;
      p = procs.get(p)?.parent ?? 0;
    }
    return false;
  };
  const byName = new Map<string, number>();
  for (const [pid, p] of procs) {
    if (!mine(pid)) continue;
    const name = pid === process.pid ? BENCH_PROCESS : p.name.startsWith('postgres') ? 'postgres' : p.name;
    byName.set(name, (byName.get(name) ?? 0) + p.value);
  }
  return byName;
}

/** CPU seconds used so far, by process name (see `byProcess`). */
export function cpuByProcess(): Map<string, number> {
  const ticks = 100; // USER_HZ on Linux
  return byProcess((_pid, fields) => (Number(fields[11]) + Number(fields[12])) / ticks);
}

/**
 * Write system calls so far, by process name (`syscw` of /proc/<pid>/io: every socket write, each of
 * which may wake the process reading it). Unlike CPU time it hardly depends on the machine or what
 * runs beside, so it shows a change in the messages of a step where CPU figures are noise.
 */
export function writesByProcess(): Map<string, number> {
  return byProcess((pid) => {
    const line = /^syscw: ([0-9]+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return line?.[1] === undefined ? undefined : Number(line[1]);
  });
}

/** Write system calls per unit since `before`, by process (busiest first) and in all: `name 12.0/unit, ...`. */
export function writesLine(before: Map<string, number>, units: number, unit: string): string {
  const rows = [...writesByProcess()]
    .map(([name, n]) => [name, (n - (before.get(name) ?? 0)) / Math.max(1, units)] as const)
    .filter(([, n]) => n >= 0.05)
    .sort((a, b) => b[1] - a[1]);
  const platform = rows.filter(([name]) => name !== BENCH_PROCESS).reduce((total, [, n]) => total + n, 0);
  return [...rows.map(([name, n]) => `${name} ${n.toFixed(1)}/${unit}`), `platform (bench apart) ${platform.toFixed(1)}/${unit}`].join(', ');
}

/** CPU seconds per process since `before`, busiest first; processes that used `minSeconds` or less are left out. */
export const cpuSince = (before: Map<string, number>, minSeconds = 0.05): Array<readonly [string, number]> =>
  [...cpuByProcess()]
    .map(([name, cpu]) => [name, cpu - (before.get(name) ?? 0)] as const)
    .filter(([, cpu]) => cpu > minSeconds)
    .sort((a, b) => b[1] - a[1]);

/**
 * `name 1.23 s (8.2 ms/leg)` per process, the total, and the platform's (every process but the
 * bench's own: its clients and wire servers are not platform work).
 */
export const cpuLine = (cpu: ReadonlyArray<readonly [string, number]>, units: number, unit: string): string => {
  const perUnit = (seconds: number): string => `${((seconds * 1000) / Math.max(1, units)).toFixed(1)} ms/${unit}`;
  const sum = (rows: ReadonlyArray<readonly [string, number]>): number => rows.reduce((total, [, seconds]) => total + seconds, 0);
  const total = sum(cpu);
  const platform = sum(cpu.filter(([name]) => name !== BENCH_PROCESS));
  return [
    ...cpu.map(([name, seconds]) => `${name} ${seconds.toFixed(2)} s (${perUnit(seconds)})`),
    `total ${total.toFixed(2)} s (${perUnit(total)})`,
    `platform (bench apart) ${platform.toFixed(2)} s (${perUnit(platform)})`,
  ].join(', ');
};
