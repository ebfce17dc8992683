import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { type Env, envValue } from '../shared/env.js';

/*
 * Sealing of users' secrets (provider keys, webhook signing secrets), ADR 0014 as amended for least
 * privilege: the gateway seals with a PUBLIC key and can never open what it sealed; only the research
 * service holds the private key. Every sealed text is bound to its owner and purpose (associated
 * data), so one moved to another user or purpose does not open.
 *
 * Both modes share the wire shape the contracts pin (`sealedKey`: `v1:<nonce>:<tag>:<data>`, base64
 * fields, AES-256-GCM), told apart by the nonce's length, so no message changes version:
 * - sealed to a key pair (nonce = ephemeral X25519 public key (32 bytes) + IV (12 bytes)): an
 *   ephemeral key agreement with the recipient's public key, HKDF-SHA256 to the AES key. Sealed by
 *   `OPENPAW_KEY_SEALING_PUBLIC_KEY`, opened by `OPENPAW_KEY_SEALING_PRIVATE_KEY`.
 * - symmetric (nonce = IV, 12 bytes): under `OPENPAW_KEY_ENCRYPTION_KEY`, the mode before the key
 *   pair. Still opened where that key is set (keys stored before the change), and still sealed where
 *   no public key is configured (a single-machine development setup).
 * A research service that predates the pair fails closed on a pair-sealed text (it does not open).
 */

/** Base64 (DER, SPKI) or PEM of the X25519 public key the gateway seals with. Not a secret. */
export const SEALING_PUBLIC_KEY_ENV = 'OPENPAW_KEY_SEALING_PUBLIC_KEY';
/** Base64 (DER, PKCS#8) or PEM of the X25519 private key: the research service's alone. */
export const SEALING_PRIVATE_KEY_ENV = 'OPENPAW_KEY_SEALING_PRIVATE_KEY';
/**
 * The private key of the pair before a rotation (same format), set beside the new one: texts sealed to
 * the old public key keep opening while the gateway already seals to the new one (docs/ops/runbook.md,
 * "Rotating the key-sealing pair").
 */
export const SEALING_PREVIOUS_PRIVATE_KEY_ENV = 'OPENPAW_KEY_SEALING_PREVIOUS_PRIVATE_KEY';
/** Base64 of 32 bytes: the symmetric key of `v1` sealed texts. */
export const KEY_ENCRYPTION_KEY_ENV = 'OPENPAW_KEY_ENCRYPTION_KEY';

export const GENERATE_SEALING_KEYS_HINT =
  'generate a pair with: node -e "const k=require(\'crypto\').generateKeyPairSync(\'x25519\');' +
  "console.log(k.publicKey.export({type:'spki',format:'der'}).toString('base64'));" +
  "console.log(k.privateKey.export({type:'pkcs8',format:'der'}).toString('base64'))\"";

export interface Sealer {
  /** Which mode this sealer writes: to a key pair, or symmetric. */
  readonly mode: 'key-pair' | 'symmetric';
  seal(associatedData: Buffer, plaintext: string): string;
}

export interface Opener {
  /** Throws `SealedTextError` when the text is not sealed for this key, owner and purpose, or was tampered with. */
  open(associatedData: Buffer, sealed: string): string;
}

/** A sealed text that does not open here (wrong key, another owner or purpose, tampering, or a format this process has no key for). */
export class SealedTextError extends Error {
  override readonly name = 'SealedTextError';
}

function aesSeal(key: Buffer, associatedData: Buffer, plaintext: string): [iv: string, tag: string, data: string] {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(associatedData);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')];
}

function aesOpen(key: Buffer, associatedData: Buffer, iv: string, tag: string, data: string): string {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAAD(associatedData);
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedTextError('the sealed text does not open with this key for this owner and purpose');
  }
}

function rawPublicKey(key: KeyObject): Buffer {
  const x = key.export({ format: 'jwk' }).x;
  if (x === undefined) throw new Error('not an X25519 public key');
  return Buffer.from(x, 'base64url');
}

function pairKey(sharedSecret: Buffer, ephemeral: Buffer, recipient: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', sharedSecret, Buffer.concat([ephemeral, recipient]), 'openpaw-sealed-key-pair', 32));
}

const IV_BYTES = 12;
const X25519_BYTES = 32;

/** Splits `v1:<nonce>:<tag>:<data>`; undefined when the text has another shape. */
function parseSealed(sealed: string): { readonly nonce: Buffer; readonly tag: string; readonly data: string } | undefined {
  const [version, nonce, tag, data, extra] = sealed.split(':');
  if (version !== 'v1' || nonce === undefined || tag === undefined || data === undefined || extra !== undefined) return undefined;
  return { nonce: Buffer.from(nonce, 'base64'), tag, data };
}

/** Seals to the holder of the private key; cannot open anything. */
export class PublicKeySealer implements Sealer {
  readonly mode = 'key-pair';
  readonly #recipient: KeyObject;
  readonly #recipientRaw: Buffer;

  constructor(publicKey: KeyObject) {
    if (publicKey.asymmetricKeyType !== 'x25519') throw new Error(`the sealing public key must be X25519, got ${publicKey.asymmetricKeyType ?? publicKey.type}`);
    this.#recipient = publicKey;
    this.#recipientRaw = rawPublicKey(publicKey);
  }

  seal(associatedData: Buffer, plaintext: string): string {
    const ephemeral = generateKeyPairSync('x25519');
    const ephemeralRaw = rawPublicKey(ephemeral.publicKey);
    const key = pairKey(diffieHellman({ privateKey: ephemeral.privateKey, publicKey: this.#recipient }), ephemeralRaw, this.#recipientRaw);
    const [iv, tag, data] = aesSeal(key, associatedData, plaintext);
    return ['v1', Buffer.concat([ephemeralRaw, Buffer.from(iv, 'base64')]).toString('base64'), tag, data].join(':');
  }

  toJSON(): string {
    return 'PublicKeySealer';
  }
}

/** The symmetric mode: whoever seals can also open. */
export class SymmetricSealer implements Sealer, Opener {
  readonly mode = 'symmetric';
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new Error(`the key encryption key must be 32 bytes, got ${key.length}`);
    this.#key = Buffer.from(key);
  }

  seal(associatedData: Buffer, plaintext: string): string {
    return ['v1', ...aesSeal(this.#key, associatedData, plaintext)].join(':');
  }

  open(associatedData: Buffer, sealed: string): string {
    const parsed = parseSealed(sealed);
    if (parsed?.nonce.length !== IV_BYTES) throw new SealedTextError('not a symmetrically sealed text');
    return aesOpen(this.#key, associatedData, parsed.nonce.toString('base64'), parsed.tag, parsed.data);
  }

  toJSON(): string {
    return 'SymmetricSealer';
  }
}

/** A private key and the raw public key it answers for (bound into each text's derived key). */
interface Recipient {
  readonly privateKey: KeyObject;
  readonly publicRaw: Buffer;
}

function recipientOf(privateKey: KeyObject): Recipient {
  if (privateKey.asymmetricKeyType !== 'x25519') throw new Error(`the sealing private key must be X25519, got ${privateKey.asymmetricKeyType ?? privateKey.type}`);
  return { privateKey, publicRaw: rawPublicKey(createPublicKey(privateKey)) };
}

/**
 * Opens pair-sealed texts with the private key (and, during a rotation, the previous one), and
 * symmetric ones with the symmetric key where one is given.
 */
export class SealedTextOpener implements Opener {
  /** The current recipient first, then the one before a rotation. */
  readonly #recipients: readonly Recipient[];
  readonly #legacy: SymmetricSealer | undefined;

  constructor(keys: { readonly privateKey?: KeyObject; readonly previousPrivateKey?: KeyObject; readonly legacyKey?: Uint8Array }) {
    this.#recipients = [keys.privateKey, keys.previousPrivateKey].filter((key) => key !== undefined).map(recipientOf);
    this.#legacy = keys.legacyKey === undefined ? undefined : new SymmetricSealer(keys.legacyKey);
  }

  open(associatedData: Buffer, sealed: string): string {
    const parsed = parseSealed(sealed);
    if (parsed?.nonce.length === IV_BYTES) {
      if (this.#legacy === undefined) throw new SealedTextError(`a symmetrically sealed text needs ${KEY_ENCRYPTION_KEY_ENV}, which is not set`);
      return this.#legacy.open(associatedData, sealed);
    }
    if (parsed?.nonce.length !== X25519_BYTES + IV_BYTES) throw new SealedTextError('not a sealed text');
    if (this.#recipients.length === 0) throw new SealedTextError(`a pair-sealed text needs ${SEALING_PRIVATE_KEY_ENV}, which is not set`);
    const ephemeralRaw = parsed.nonce.subarray(0, X25519_BYTES);
    const iv = parsed.nonce.subarray(X25519_BYTES).toString('base64');
    let ephemeralKey: KeyObject;
    try {
      ephemeralKey = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: ephemeralRaw.toString('base64url') }, format: 'jwk' });
    } catch {
      throw new SealedTextError('the sealed text carries no valid ephemeral key');
    }
    let refusal: unknown;
    for (const recipient of this.#recipients) {
      try {
        const shared = diffieHellman({ privateKey: recipient.privateKey, publicKey: ephemeralKey });
        return aesOpen(pairKey(shared, ephemeralRaw, recipient.publicRaw), associatedData, iv, parsed.tag, parsed.data);
      } catch (error) {
        // Another key's text (GCM refuses it) or an ephemeral key no agreement accepts: try the previous key.
        refusal = error instanceof SealedTextError ? error : new SealedTextError('the sealed text carries no valid ephemeral key');
      }
    }
    throw refusal;
  }

  toJSON(): string {
    return 'SealedTextOpener';
  }
}

/** What a vault or sealer holds: the half of the keys its process needs. */
export interface SealingKeys {
  readonly sealer?: Sealer;
  readonly opener?: Opener;
}

/** A 32-byte symmetric key seals and opens; anything else is taken as given. */
export function sealingKeysOf(keys: Uint8Array | SealingKeys): SealingKeys {
  if (!(keys instanceof Uint8Array)) return keys;
  const symmetric = new SymmetricSealer(keys);
  return { sealer: symmetric, opener: symmetric };
}

/** What a vault or sealer needs from the environment: to seal (the gateway) or to open (research). */
export function sealingKeysFromEnv(env: Env, need: 'seal' | 'open'): SealingKeys {
  return need === 'seal' ? { sealer: sealerFromEnv(env) } : { opener: openerFromEnv(env) };
}

function keyMaterial(raw: string): string | Buffer {
  return raw.includes('-----BEGIN') ? raw.replace(/\\n/g, '\n') : Buffer.from(raw, 'base64');
}

function publicKeyFromEnv(env: Env): KeyObject | undefined {
  const raw = envValue(env, SEALING_PUBLIC_KEY_ENV);
  if (raw === undefined) return undefined;
  try {
    const material = keyMaterial(raw);
    return typeof material === 'string' ? createPublicKey(material) : createPublicKey({ key: material, format: 'der', type: 'spki' });
  } catch {
    throw new Error(`${SEALING_PUBLIC_KEY_ENV} must be an X25519 public key (base64 of SPKI DER, or PEM); ${GENERATE_SEALING_KEYS_HINT}`);
  }
}

function privateKeyFromEnv(env: Env, name: string = SEALING_PRIVATE_KEY_ENV): KeyObject | undefined {
  const raw = envValue(env, name);
  if (raw === undefined) return undefined;
  try {
    const material = keyMaterial(raw);
    return typeof material === 'string' ? createPrivateKey(material) : createPrivateKey({ key: material, format: 'der', type: 'pkcs8' });
  } catch {
    throw new Error(`${name} must be an X25519 private key (base64 of PKCS#8 DER, or PEM); ${GENERATE_SEALING_KEYS_HINT}`);
  }
}

function symmetricKeyFromEnv(env: Env): Buffer | undefined {
  const raw = envValue(env, KEY_ENCRYPTION_KEY_ENV);
  if (raw === undefined) return undefined;
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32 || key.toString('base64').replace(/=+$/, '') !== raw.replace(/=+$/, '')) {
    throw new Error(`${KEY_ENCRYPTION_KEY_ENV} must be base64 of exactly 32 bytes`);
  }
  return key;
}

/**
 * What the gateway seals with: the public key when `OPENPAW_KEY_SEALING_PUBLIC_KEY` is set (the
 * deployment), else the symmetric `OPENPAW_KEY_ENCRYPTION_KEY`. Throws naming both when neither is.
 */
export function sealerFromEnv(env: Env): Sealer {
  const publicKey = publicKeyFromEnv(env);
  if (publicKey !== undefined) return new PublicKeySealer(publicKey);
  const symmetric = symmetricKeyFromEnv(env);
  if (symmetric !== undefined) return new SymmetricSealer(symmetric);
  throw new Error(`neither ${SEALING_PUBLIC_KEY_ENV} nor ${KEY_ENCRYPTION_KEY_ENV} is set; ${GENERATE_SEALING_KEYS_HINT}`);
}

/**
 * What the research service opens with: the private key (pair-sealed texts), during a rotation the
 * previous one, and, where set, the symmetric key (texts sealed before the key pair). Throws naming
 * both when neither the private nor the symmetric key is set, and a previous key without a current one.
 */
export function openerFromEnv(env: Env): Opener {
  const privateKey = privateKeyFromEnv(env);
  const previousPrivateKey = privateKeyFromEnv(env, SEALING_PREVIOUS_PRIVATE_KEY_ENV);
  const legacyKey = symmetricKeyFromEnv(env);
  if (previousPrivateKey !== undefined && privateKey === undefined) {
    throw new Error(`${SEALING_PREVIOUS_PRIVATE_KEY_ENV} is set without ${SEALING_PRIVATE_KEY_ENV}: during a rotation the new private key goes in ${SEALING_PRIVATE_KEY_ENV}, the old one beside it`);
  }
  if (privateKey === undefined && legacyKey === undefined) {
    throw new Error(`neither ${SEALING_PRIVATE_KEY_ENV} nor ${KEY_ENCRYPTION_KEY_ENV} is set; ${GENERATE_SEALING_KEYS_HINT}`);
  }
  return new SealedTextOpener({
    ...(privateKey === undefined ? {} : { privateKey }),
    ...(previousPrivateKey === undefined ? {} : { previousPrivateKey }),
    ...(legacyKey === undefined ? {} : { legacyKey }),
  });
}
