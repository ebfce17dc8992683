import type { Env } from '../shared/env.js';
import { type Opener, type Sealer, type SealingKeys, sealingKeysFromEnv, sealingKeysOf } from './sealing.js';

/**
 * Seals a secret other than a provider key (e.g. a user's webhook signing secret) like the key vault
 * (`sealing.ts`), bound to its purpose and owner as associated data, so a sealed secret moved to
 * another user or purpose does not open. The gateway's seals and cannot open; research's opens.
 */
export class SecretSealer {
  readonly #sealer: Sealer | undefined;
  readonly #opener: Opener | undefined;

  /** `keys`: a 32-byte symmetric key (seals and opens `v1`), or a sealer and/or an opener. */
  constructor(keys: Uint8Array | SealingKeys) {
    ({ sealer: this.#sealer, opener: this.#opener } = sealingKeysOf(keys));
  }

  /** `seal` (the gateway) or `open` (research) from the environment; throws naming the settings when they are missing or malformed. */
  static fromEnv(env: Env, need: 'seal' | 'open'): SecretSealer {
    return new SecretSealer(sealingKeysFromEnv(env, need));
  }

  seal(purpose: string, owner: string, plaintext: string): string {
    if (this.#sealer === undefined) throw new Error(`this process cannot seal ${purpose} secrets`);
    return this.#sealer.seal(associatedData(purpose, owner), plaintext);
  }

  /** Throws when the sealed text is not of this purpose and owner, or was tampered with. */
  open(purpose: string, owner: string, sealed: string): string {
    if (this.#opener === undefined) throw new Error(`this process cannot open ${purpose} secrets`);
    try {
      return this.#opener.open(associatedData(purpose, owner), sealed);
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
