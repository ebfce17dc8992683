/**
 * Prints the accounts block of nats-server's config (the `openpaw-nats-accounts` Secret's
 * `accounts.conf`, deploy/nats/values.yaml includes it): the platform's nkey users with their
 * permissions, from the `.creds` files ops issued (`<user>.creds` for every service and
 * `provisioner`), and the partners.
 *
 *   node dist/deploy/src/nats-accounts-cli.js --creds-dir DIR [--partners partners.json] > accounts.conf
 *
 * `partners.json`: `[{ "name": "acme", "user": "acme", "password": "…" }]`.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { serviceUsersFromCredsDir } from './nats-credentials.js';
import { natsAccountsConfig } from './partner-access.js';

const { values } = parseArgs({ options: { 'creds-dir': { type: 'string' }, partners: { type: 'string' } } });
const credsDir = values['creds-dir'];
if (credsDir === undefined) throw new Error('--creds-dir DIR is required (a <user>.creds file per NATS user)');
const partners = values.partners === undefined ? [] : (JSON.parse(readFileSync(values.partners, 'utf8')) as { name: string; user: string; password: string }[]);
process.stdout.write(natsAccountsConfig({ serviceUsers: serviceUsersFromCredsDir(credsDir), partners }));
