import type { ParseArgsConfig } from 'node:util';

/** Options every verb takes (after the verb: `openpaw status <id> --json`). */
export const GLOBAL_OPTIONS = {
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  'api-url': { type: 'string' },
  profile: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** How long a verb follows a run before it stops (the run goes on; `openpaw status` finds it). */
export const DEFAULT_FOLLOW_TIMEOUT_SECONDS = 900;
