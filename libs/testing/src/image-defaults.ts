import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** What the image (the Dockerfile's last stage) adds to every container: its WORKDIR, ENV and USER. */
export interface ImageDefaults {
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
  readonly user: string | undefined;
}

/** Reads WORKDIR, ENV (`KEY=value` pairs) and USER of the Dockerfile's last stage. */
export function imageDefaultsOf(dockerfile: string): ImageDefaults {
  const stages = dockerfile.split(/^FROM\s.*$/m);
  const last = stages.at(-1) ?? '';
  let workdir = '/';
  let user: string | undefined;
  const env: Record<string, string> = {};
  for (const line of last.split('\n')) {
    const [instruction, ...rest] = line.trim().split(/\s+/);
    if (instruction === 'WORKDIR') workdir = rest.join(' ');
    if (instruction === 'USER') user = rest[0];
    if (instruction === 'ENV') {
      for (const pair of rest) {
        const at = pair.indexOf('=');
        if (at <= 0) throw new Error(`Dockerfile: ENV ${pair} is not KEY=value (the boot test reads only that form)`);
        env[pair.slice(0, at)] = pair.slice(at + 1);
      }
    }
  }
  return { workdir, env, user };
}

/**
 * The Node options the checkout's image runs every service with (its `ENV NODE_OPTIONS`, e.g. the V8
 * heap settings), so services started from the build run as they do in production; '' without a
 * Dockerfile or without the setting.
 */
export function imageNodeOptions(root: string): string {
  const dockerfile = join(root, 'Dockerfile');
  if (!existsSync(dockerfile)) return '';
  return imageDefaultsOf(readFileSync(dockerfile, 'utf8')).env['NODE_OPTIONS'] ?? '';
}

/**
 * NODE_OPTIONS for a service: the image's options first (`imageNodeOptions`, as in production), then
 * the caller's (e.g. `--cpu-prof`; a V8 flag given twice takes the later value).
 */
export function nodeOptionsAfterImage(image: string, added: string | undefined): string {
  return [image, added ?? ''].filter((o) => o !== '').join(' ');
}

/**
 * The Node flags each service's container starts with, by app (`dist/apps/<app>/…`), as the checkout's
 * docker-compose.yml says (deploy/src/compose.spec.ts holds it equal to the manifests' commands): so a
 * service started from the build runs with production's flags. A flag on the command line wins over
 * the same V8 flag in NODE_OPTIONS. Empty without the file.
 */
export function serviceNodeFlags(root: string): ReadonlyMap<string, readonly string[]> {
  const file = join(root, 'docker-compose.yml');
  const flags = new Map<string, readonly string[]>();
  if (!existsSync(file)) return flags;
  const compose = parse(readFileSync(file, 'utf8'), { merge: true }) as { services?: Record<string, { command?: unknown }> };
  for (const [name, service] of Object.entries(compose.services ?? {})) {
    const command = service.command;
    if (!Array.isArray(command) || command[0] !== 'node') continue;
    const app = /^dist\/apps\/([^/]+)\//.exec(String(command.at(-1)))?.[1];
    if (app === undefined) continue;
    const these = command.slice(1, -1).map(String);
    const other = flags.get(app);
    if (other !== undefined && other.join(' ') !== these.join(' ')) throw new Error(`docker-compose.yml: ${name} starts ${app} with ${these.join(' ') || 'no flags'}, another of its services with ${other.join(' ') || 'none'}`);
    flags.set(app, these);
  }
  return flags;
}
