import { lookup } from 'node:dns/promises';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to every address it has now (a webhook delivery resolves once, vets all, and connects only to those). */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The operating system's resolver (`getaddrinfo`, so /etc/hosts and the search domains apply), in its own order. */
export const systemHostResolver: HostResolver = async (hostname) => {
  const addresses = await lookup(hostname, { all: true, order: 'verbatim' });
  return addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};
