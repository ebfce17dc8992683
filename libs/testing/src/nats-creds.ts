import { nkeys } from '@nats-io/nats-core';

/** A JWT a config-file-accounts nats-server never reads (it checks the nkey signature only). */
const UNREAD_JWT = 'eyJ0eXAiOiJKV1QifQ.e30.c2ln';

/**
 * A `.creds` file as `nsc` writes it: the user JWT, then the nkey seed that signs the server's nonce.
 * With the accounts of a config file (not operator mode) nats-server checks the nkey signature and
 * does not read the JWT, so tests pass a placeholder.
 */
export function natsCredsFileText(seed: Uint8Array | string, jwt: string = UNREAD_JWT): string {
  const text = typeof seed === 'string' ? seed : new TextDecoder().decode(seed);
  return `-----BEGIN NATS USER JWT-----\n${jwt}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${text}\n------END USER NKEY SEED------\n`;
}

/** A fresh nkey user: its seed (for its creds file) and public key (for the server's config). */
export function newNatsUserKey(): { readonly seed: Uint8Array; readonly publicKey: string } {
  const pair = nkeys.createUser();
  return { seed: pair.getSeed(), publicKey: pair.getPublicKey() };
}
