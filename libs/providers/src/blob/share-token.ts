import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Share tokens of the local blob store: `<payload>.<signature>`, base64url, where the payload is
 * `{"k": key, "e": expiry in epoch seconds, "s"?: scope}` and the signature is HMAC-SHA256 under the share
 * secret. The gateway serves `GET <share base URL>/<token>` by checking it with `verifyShareToken`.
 */
export type ShareTokenVerification =
  | { readonly valid: true; readonly key: string; readonly expiresAt: Date; readonly scope?: string }
  | { readonly valid: false; readonly reason: 'malformed' | 'bad_signature' | 'expired' };

const DOMAIN = 'openpaw-blob-share-v1.';

/** `scope`: whom the link is for (`ShareOptions.scope`), signed with the key and the expiry. */
export function createShareToken(key: string, expiresAt: Date, secret: Uint8Array | string, scope?: string): string {
  const claims = { k: key, e: Math.floor(expiresAt.getTime() / 1000), ...(scope === undefined ? {} : { s: scope }) };
  const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
  return `${payload}.${sign(payload, secret)}`;
}

export function verifyShareToken(token: string, secret: Uint8Array | string, now: Date = new Date()): ShareTokenVerification {
  const parts = token.split('.');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return { valid: false, reason: 'malformed' };
  const [payload, signature] = parts as [string, string];
  const expected = Buffer.from(sign(payload, secret), 'base64url');
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { valid: false, reason: 'bad_signature' };
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { valid: false, reason: 'malformed' };
  }
  const { k, e, s } = (data ?? {}) as { k?: unknown; e?: unknown; s?: unknown };
  if (typeof k !== 'string' || typeof e !== 'number' || (s !== undefined && typeof s !== 'string')) return { valid: false, reason: 'malformed' };
  const expiresAt = new Date(e * 1000);
  if (now.getTime() >= expiresAt.getTime()) return { valid: false, reason: 'expired' };
  return { valid: true, key: k, expiresAt, ...(s === undefined ? {} : { scope: s }) };
}

function sign(payload: string, secret: Uint8Array | string): string {
  return createHmac('sha256', secret).update(DOMAIN + payload).digest('base64url');
}

/**
 * The local default share secret: `<blob root>/share-secret`, created (mode 0600) with 32 random
 * bytes on first use, so every service on the machine that shares the blob directory (assets
 * signing, the gateway verifying) agrees on it without configuration.
 */
export async function loadOrCreateShareSecret(rootDir: string): Promise<Buffer> {
  const path = join(rootDir, 'share-secret');
  try {
    return Buffer.from((await readFile(path, 'utf8')).trim(), 'base64');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(rootDir, { recursive: true });
  try {
    await writeFile(path, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return Buffer.from((await readFile(path, 'utf8')).trim(), 'base64');
}
