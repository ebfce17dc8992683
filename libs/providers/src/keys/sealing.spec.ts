import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { sealedKey } from '@openpaw/contracts';
import { openerFromEnv, PublicKeySealer, SealedTextError, SealedTextOpener, sealerFromEnv, SymmetricSealer } from './sealing.js';

const AD = Buffer.from('openpaw-user-key\u0000alice\u0000openai');
const OTHER_AD = Buffer.from('openpaw-user-key\u0000mallory\u0000openai');
const SECRET = 'sk-live-0123456789abcdef';

function pair() {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return {
    publicKey,
    privateKey,
    publicEnv: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    privateEnv: privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'),
  };
}

describe('sealing to the research service', () => {
  it('sealed with the public key, in the wire shape the contracts pin, opened only with its private key, for its owner and purpose', () => {
    const keys = pair();
    const sealed = new PublicKeySealer(keys.publicKey).seal(AD, SECRET);
    expect(sealedKey.safeParse(sealed).success).toBe(true);
    expect(Buffer.from(sealed.split(':')[1]!, 'base64')).toHaveLength(32 + 12);
    expect(sealed).not.toContain(SECRET);
    const opener = new SealedTextOpener({ privateKey: keys.privateKey });
    expect(opener.open(AD, sealed)).toBe(SECRET);
    expect(() => opener.open(OTHER_AD, sealed)).toThrow(SealedTextError);
    expect(() => new SealedTextOpener({ privateKey: pair().privateKey }).open(AD, sealed)).toThrow(SealedTextError);
    // Fresh ephemeral key and IV each time.
    expect(new PublicKeySealer(keys.publicKey).seal(AD, SECRET)).not.toBe(sealed);
  });

  it('refuses a tampered text, a swapped ephemeral key, and garbage, with SealedTextError', () => {
    const keys = pair();
    const opener = new SealedTextOpener({ privateKey: keys.privateKey });
    const [version, nonce, tag, data] = new PublicKeySealer(keys.publicKey).seal(AD, SECRET).split(':');
    const flipped = Buffer.from(data!, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => opener.open(AD, [version, nonce, tag, flipped.toString('base64')].join(':'))).toThrow(SealedTextError);
    const otherNonce = Buffer.from(new PublicKeySealer(keys.publicKey).seal(AD, SECRET).split(':')[1]!, 'base64');
    const swapped = Buffer.concat([otherNonce.subarray(0, 32), Buffer.from(nonce!, 'base64').subarray(32)]).toString('base64');
    expect(() => opener.open(AD, [version, swapped, tag, data].join(':'))).toThrow(SealedTextError);
    expect(() => opener.open(AD, [version, Buffer.alloc(44).toString('base64'), tag, data].join(':'))).toThrow(SealedTextError);
    for (const garbage of ['', 'v1', 'v2:a:b:c', `v1:${Buffer.alloc(20).toString('base64')}:${tag}:${data}`, `${[version, nonce, tag, data].join(':')}:extra`]) {
      expect(() => opener.open(AD, garbage)).toThrow(SealedTextError);
    }
  });

  it('opens texts sealed before the key pair where the symmetric key is still set, and says which key a text needs', () => {
    const keys = pair();
    const legacyKey = randomBytes(32);
    const v1 = new SymmetricSealer(legacyKey).seal(AD, SECRET);
    expect(sealedKey.safeParse(v1).success).toBe(true);
    // A research service that predates the pair (symmetric key only) fails closed on a pair-sealed text.
    expect(() => new SymmetricSealer(legacyKey).open(AD, new PublicKeySealer(keys.publicKey).seal(AD, SECRET))).toThrow(SealedTextError);
    const both = openerFromEnv({ OPENPAW_KEY_SEALING_PRIVATE_KEY: keys.privateEnv, OPENPAW_KEY_ENCRYPTION_KEY: legacyKey.toString('base64') });
    expect(both.open(AD, v1)).toBe(SECRET);
    expect(both.open(AD, sealerFromEnv({ OPENPAW_KEY_SEALING_PUBLIC_KEY: keys.publicEnv }).seal(AD, SECRET))).toBe(SECRET);
    expect(() => openerFromEnv({ OPENPAW_KEY_SEALING_PRIVATE_KEY: keys.privateEnv }).open(AD, v1)).toThrow(/symmetrically sealed text needs OPENPAW_KEY_ENCRYPTION_KEY/);
    const pairSealed = new PublicKeySealer(keys.publicKey).seal(AD, SECRET);
    expect(() => openerFromEnv({ OPENPAW_KEY_ENCRYPTION_KEY: legacyKey.toString('base64') }).open(AD, pairSealed)).toThrow(/pair-sealed text needs OPENPAW_KEY_SEALING_PRIVATE_KEY/);
  });

  it('opens texts sealed to the previous pair while a rotation is under way, and nothing once that key is gone', () => {
    const before = pair();
    const after = pair();
    const sealedBefore = sealerFromEnv({ OPENPAW_KEY_SEALING_PUBLIC_KEY: before.publicEnv }).seal(AD, SECRET);
    const sealedAfter = sealerFromEnv({ OPENPAW_KEY_SEALING_PUBLIC_KEY: after.publicEnv }).seal(AD, SECRET);
    const rotating = openerFromEnv({ OPENPAW_KEY_SEALING_PRIVATE_KEY: after.privateEnv, OPENPAW_KEY_SEALING_PREVIOUS_PRIVATE_KEY: before.privateEnv });
    expect(rotating.open(AD, sealedBefore)).toBe(SECRET);
    expect(rotating.open(AD, sealedAfter)).toBe(SECRET);
    // Still bound to its owner and purpose under either key.
    expect(() => rotating.open(OTHER_AD, sealedBefore)).toThrow(SealedTextError);
    expect(() => rotating.open(OTHER_AD, sealedAfter)).toThrow(SealedTextError);
    // The old key removed: what only it opened no longer opens.
    expect(() => openerFromEnv({ OPENPAW_KEY_SEALING_PRIVATE_KEY: after.privateEnv }).open(AD, sealedBefore)).toThrow(SealedTextError);
    expect(() => openerFromEnv({ OPENPAW_KEY_SEALING_PREVIOUS_PRIVATE_KEY: before.privateEnv })).toThrow(/OPENPAW_KEY_SEALING_PREVIOUS_PRIVATE_KEY is set without OPENPAW_KEY_SEALING_PRIVATE_KEY/);
    expect(() => openerFromEnv({ OPENPAW_KEY_SEALING_PRIVATE_KEY: after.privateEnv, OPENPAW_KEY_SEALING_PREVIOUS_PRIVATE_KEY: 'bm90IGEga2V5' })).toThrow(
      /OPENPAW_KEY_SEALING_PREVIOUS_PRIVATE_KEY must be an X25519 private key/,
    );
  });

  it('reads keys from the environment (base64 DER or PEM), prefers the public key for sealing, and names a bad setting', () => {
    const keys = pair();
    const pem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(sealerFromEnv({ OPENPAW_KEY_SEALING_PUBLIC_KEY: pem, OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') }).mode).toBe('key-pair');
    expect(sealerFromEnv({ OPENPAW_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') }).mode).toBe('symmetric');
    expect(() => sealerFromEnv({ OPENPAW_KEY_SEALING_PUBLIC_KEY: 'bm90IGEga2V5' })).toThrow(/OPENPAW_KEY_SEALING_PUBLIC_KEY must be an X25519 public key.*generateKeyPairSync/);
    expect(() => openerFromEnv({ OPENPAW_KEY_SEALING_PRIVATE_KEY: 'bm90IGEga2V5' })).toThrow(/OPENPAW_KEY_SEALING_PRIVATE_KEY must be an X25519 private key/);
    const ed = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    expect(() => sealerFromEnv({ OPENPAW_KEY_SEALING_PUBLIC_KEY: ed })).toThrow(/must be X25519, got ed25519/);
  });

  it('never shows key material when inspected or serialised', () => {
    const keys = pair();
    for (const holder of [new PublicKeySealer(keys.publicKey), new SealedTextOpener({ privateKey: keys.privateKey }), new SymmetricSealer(randomBytes(32))]) {
      expect(JSON.stringify({ holder })).not.toMatch(/BEGIN|[A-Za-z0-9+/]{40}/);
      expect(inspect(holder)).not.toContain(keys.privateEnv.slice(0, 20));
    }
  });
});
