import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnManaged, type ManagedProcess } from '@openpaw/testing';

export interface SandboxSpec {
  readonly argv: readonly string[];
  /** The whole environment of the process (nothing is inherited from the test runner). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Every mount of the namespace read-only but /proc, /sys, /dev (as a container runtime leaves them) and `writable`. */
  readonly readOnlyRoot: boolean;
  /** Host directory → path inside: bound read-write (bound read-only when `readOnly`). */
  readonly mounts: readonly { readonly hostDir: string; readonly path: string; readonly readOnly: boolean }[];
  /** setpriv's identity; with it every capability is dropped and no_new_privs set (the manifests' securityContext). */
  readonly uid: number | undefined;
  readonly gid: number | undefined;
}

export interface SandboxedProcess extends ManagedProcess {
  /** Everything the process wrote to stdout and stderr (ManagedProcess keeps only a tail). */
  readonly log: () => string;
}

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The shell script run by `unshare -m --propagation private`: binds the writable mounts, makes every
 * other mount of this private namespace read-only (`remount,ro,bind`: a per-mount flag, so the host's
 * mounts stay as they are), then drops to the pod's uid/gid without capabilities and execs the
 * command. Root ignores file modes, not a read-only mount: this is what makes the check real where
 * CI runs as root. A mount it cannot make read-only stops the start (exit 97), never silently.
 */
export function sandboxScript(spec: SandboxSpec): string {
  const lines = ['set -e'];
  // A checkout under a declared mount (a clone in /tmp, and the pod's /tmp emptyDir) would vanish under
  // it: it is bound into the mount's host directory first, and that mount carries it (--rbind).
  const shadowing = new Set(spec.mounts.filter((mount) => checkoutUnder(spec.cwd, mount.path) !== undefined));
  // Read-only at once: once the mount covers the host directory, this first bind has no path to remount.
  for (const mount of shadowing) {
    const target = quote(join(mount.hostDir, checkoutUnder(spec.cwd, mount.path) ?? ''));
    lines.push(`mount --bind ${quote(spec.cwd)} ${target}`, `mount -o remount,ro,bind ${target}`);
  }
  // A mount over the directory holding another mount's host directory (the pod's /tmp over the scratch
  // in /tmp) comes after it: bound first, that host directory would be gone.
  const hides = (mount: SandboxSpec['mounts'][number]): boolean => spec.mounts.some((other) => other !== mount && checkoutUnder(other.hostDir, mount.path) !== undefined);
  for (const mount of [...spec.mounts.filter((m) => !hides(m)), ...spec.mounts.filter(hides)]) {
    lines.push(`mount ${shadowing.has(mount) ? '--rbind' : '--bind'} ${quote(mount.hostDir)} ${quote(mount.path)}`);
    if (mount.readOnly) lines.push(`mount -o remount,ro,bind ${quote(mount.path)}`);
  }
  if (spec.readOnlyRoot) {
    const keep = ['/proc', '/proc/*', '/sys', '/sys/*', '/dev', '/dev/*', ...spec.mounts.map((m) => quote(m.path))].join('|');
    lines.push(
      `for mp in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do`,
      `  case "$mp" in ${keep}) continue ;; esac`,
      // A mount hidden under a later one (the checkout's bind in a mount's host directory) has no path here.
      `  [ -e "$mp" ] || continue`,
      `  mount -o remount,ro,bind "$mp" || { echo "boot sandbox: cannot make $mp read-only" >&2; exit 97; }`,
      `done`,
    );
  }
  lines.push(`cd ${quote(spec.cwd)}`);
  const identity =
    spec.uid === undefined
      ? []
      : ['setpriv', `--reuid=${spec.uid}`, `--regid=${spec.gid ?? spec.uid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--'];
  lines.push(`exec ${[...identity, ...spec.argv].map(quote).join(' ')}`);
  return lines.join('\n');
}

/** Where `cwd` sits inside a mount at `path` (relative), or undefined when it is not under it. */
function checkoutUnder(cwd: string, path: string): string | undefined {
  return cwd.startsWith(`${path.replace(/\/+$/, '')}/`) ? cwd.slice(path.replace(/\/+$/, '').length + 1) : undefined;
}

/** Starts the process in its own mount namespace (see `sandboxScript`); `unshare` execs, so the pid is the process's own. */
export function spawnSandboxed(spec: SandboxSpec): SandboxedProcess {
  // The mount point the checkout is bound onto, inside a mount that would otherwise hide it.
  for (const mount of spec.mounts) {
    const relative = checkoutUnder(spec.cwd, mount.path);
    if (relative !== undefined) mkdirSync(join(mount.hostDir, relative), { recursive: true });
  }
  const proc = spawnManaged('unshare', ['-m', '--propagation', 'private', 'sh', '-c', sandboxScript(spec)], { env: { ...spec.env } });
  const chunks: string[] = [];
  proc.child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  proc.child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  return Object.assign(proc, { log: () => chunks.join('') });
}

/** Resolves with the exit code once the process ends (a Job's container). */
export function exitOf(proc: ManagedProcess): Promise<number> {
  const { child } = proc;
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  if (child.signalCode !== null) return Promise.resolve(128);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 128)));
}
