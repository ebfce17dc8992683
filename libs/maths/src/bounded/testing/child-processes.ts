import { readdirSync, readFileSync } from 'node:fs';

/** The processes whose parent is `parentPid` (read from /proc: Linux only, as the platform's images are). */
export function childPidsOf(parentPid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended while we looked
    }
    // pid (comm) state ppid …: the command name may hold spaces and parentheses, so read after its last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === parentPid) children.push(Number(entry));
  }
  return children;
}

/** Whether a process is still running (not yet reaped counts as ended: a zombie runs nothing). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The engine workers among a process's children. */
export function engineWorkerPidsOf(parentPid: number): number[] {
  return childPidsOf(parentPid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('engine-worker');
    } catch {
      return false;
    }
  });
}
