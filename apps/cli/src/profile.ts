import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliEnv } from './io.js';

/** One gateway and the token to use there, saved by `openpaw login`. */
export interface Profile {
  readonly apiUrl: string;
  readonly token: string;
}

/** The profile file: `<config dir>/profiles.json`, mode 0600. */
export interface ProfileFile {
  readonly version: 1;
  /** The profile used when none is named (`--profile` / `OPENPAW_PROFILE`). */
  readonly current: string;
  readonly profiles: Readonly<Record<string, Profile>>;
}

export const DEFAULT_PROFILE = 'default';

/** `OPENPAW_CONFIG_DIR`, else `$XDG_CONFIG_HOME/openpaw`, else `~/.config/openpaw`. */
export function configDir(env: CliEnv): string | undefined {
  const explicit = env['OPENPAW_CONFIG_DIR'];
  if (explicit !== undefined && explicit !== '') return explicit;
  const xdg = env['XDG_CONFIG_HOME'];
  if (xdg !== undefined && xdg !== '') return join(xdg, 'openpaw');
  const home = env['HOME'];
  return home === undefined || home === '' ? undefined : join(home, '.config', 'openpaw');
}

function profilePath(env: CliEnv): string | undefined {
  const dir = configDir(env);
  return dir === undefined ? undefined : join(dir, 'profiles.json');
}

/** The profile file, or `undefined` when there is none yet. */
export async function readProfiles(env: CliEnv): Promise<ProfileFile | undefined> {
  const path = profilePath(env);
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<ProfileFile>;
  if (parsed.version !== 1 || typeof parsed.profiles !== 'object' || parsed.profiles === null) throw new Error(`${path}: not an openpaw profile file (version 1)`);
  return { version: 1, current: parsed.current ?? DEFAULT_PROFILE, profiles: parsed.profiles };
}

/** Saves `profile` under `name` and makes it current; the file is written whole (rename) and readable by its owner only. */
export async function saveProfile(env: CliEnv, name: string, profile: Profile): Promise<string> {
  const path = profilePath(env);
  const dir = configDir(env);
  if (path === undefined || dir === undefined) throw new Error('no place for the profile file: set HOME or OPENPAW_CONFIG_DIR');
  const existing = await readProfiles(env);
  const next: ProfileFile = { version: 1, current: name, profiles: { ...existing?.profiles, [name]: profile } };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
  return path;
}
