import { readdirSync, readFileSync } from 'node:fs';

/** The label of the bench process itself (its HTTP clients and any wire servers it runs). */
export const BENCH_PROCESS = 'bench (clients, wire servers)';

/**
 * CPU seconds used so far by this process's descendants (the services, nats-server, PostgreSQL and
 * its backends) and by the bench itself, by name, from /proc: a service is named after its
 * `dist/apps/<name>` entry point, PostgreSQL's backends are summed as `postgres`.
 */
export function cpuByProcess(): Map<string, number> {
  const ticks = 100; // USER_HZ on Linux
  const procs = new Map<number, { parent: number; name: string; cpu: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const app = cmd.find((part) => part.includes('dist/apps/'))?.replace(/.*dist\/apps\/([^/]+).*/, '$1');
      const name = app ?? stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      procs.set(Number(entry), { parent: Number(fields[1]), name, cpu: (Number(fields[11]) + Number(fields[12])) / ticks });
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
    byName.set(name, (byName.get(name) ?? 0) + p.cpu);
  }
  return byName;
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
