import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type Env, envValue } from '../shared/env.js';
import { KEY_ENCRYPTION_KEY_ENV } from './user-key-vault.js';

/**
 * Seals a secret other than a provider key (e.g. a user's webhook signing secret) under
 * `OPENPAW_KEY_ENCRYPTION_KEY`, like the key vault: AES-256-GCM, a fresh 96-bit IV, bound to its
 * purpose and owner as associated data, so a sealed secret moved to another user or purpose does
 * not open. Format `v1:iv:tag:data` (base64), the same as sealed provider keys.
 */
export class SecretSealer {
  readonly #key: Buffer;

  constructor(encryptionKey: Uint8Array) {
    if (encryptionKey.length !== 32) throw new Error(`the key encryption key must be 32 bytes, got ${encryptionKey.length}`);
    this.#key = Buffer.from(encryptionKey);
  }

  /** From `OPENPAW_KEY_ENCRYPTION_KEY`; throws naming the setting when it is missing or not base64 of 32 bytes. */
  static fromEnv(env: Env): SecretSealer {
    const raw = envValue(env, KEY_ENCRYPTION_KEY_ENV);
    if (raw === undefined) throw new Error(`${KEY_ENCRYPTION_KEY_ENV} is not set`);
    const key = Buffer.from(raw, 'base64');
    if (key.length !== 32) throw new Error(`${KEY_ENCRYPTION_KEY_ENV} must be base64 of exactly 32 bytes`);
    return new SecretSealer(key);
  }

  seal(purpose: string, owner: string, plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(associatedData(purpose, owner));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
  }

  /** Throws when the sealed text is not of this purpose and owner, or was tampered with. */
  open(purpose: string, owner: string, sealed: string): string {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) throw new Error(`not a sealed ${purpose} secret`);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64'));
    decipher.setAAD(associatedData(purpose, owner));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(`the sealed ${purpose} secret of ${owner} cannot be opened`);
    }
  }

  /** Keeps the key out of `console.log` / util.inspect output. */
  toJSON(): string {
    return 'SecretSealer';
  }
}

function associatedData(purpose: string, owner: string): Buffer {
  return Buffer.from(`openpaw-secret\u0000${purpose}\u0000${owner}`, 'utf8');
}
