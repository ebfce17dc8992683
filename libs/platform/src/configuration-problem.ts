import type { StartupProblem } from './startup-checks.js';

/** A variable's name in SCREAMING_SNAKE_CASE with at least one underscore (`OPENPAW_JWT_SECRET`, `OPENAI_API_KEY`). */
const SETTING_NAME = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g;
/** Names whose values are secrets: never written to a readiness body or a log line. */
const SECRET_NAME = /(SECRET|PASSWORD|PASSWD|TOKEN|CREDENTIAL|PRIVATE|_KEY$|_KEY_|^KEY_)/;
/** The password part of a URL's user info (`postgres://role:password@host`). */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi;
/** Shorter values are not searched for: replacing `1` everywhere would garble the message and hide nothing. */
const SHORTEST_REDACTED_VALUE = 4;

/**
 * `message` with every secret value of `env` (variables named like a secret, see `SECRET_NAME`) and
 * every password in a URL replaced by `[redacted]`: a settings reader's error may quote what it read.
 */
export function redactSecrets(message: string, env: Readonly<Record<string, string | undefined>>): string {
  let redacted = message.replace(URL_PASSWORD, '$1:[redacted]@');
  const secrets = Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && value !== undefined && value.length >= SHORTEST_REDACTED_VALUE)
    .map(([, value]) => value as string)
    // The longest first, so a secret containing another is replaced whole.
    .sort((a, b) => b.length - a.length);
  for (const secret of secrets) redacted = redacted.split(secret).join('[redacted]');
  return redacted;
}

/**
 * The startup problem of a settings reader that threw (a missing Secret key, a malformed value): the
 * settings its message names (every `SCREAMING_SNAKE` variable in it, in order; `configuration` when
 * it names none) and the message itself with secrets redacted.
 */
export function configurationProblem(error: unknown, env: Readonly<Record<string, string | undefined>>): StartupProblem {
  const message = redactSecrets(error instanceof Error ? error.message : String(error), env);
  const named = [...new Set(message.match(SETTING_NAME) ?? [])];
  return { setting: named.length === 0 ? 'configuration' : named.join(', '), detail: message.replace(/\s*\n\s*/g, ' ') };
}
