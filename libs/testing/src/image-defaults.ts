import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

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
