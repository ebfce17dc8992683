import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { KEYED_RESEARCH_PROVIDERS, type KeyedResearchProvider, type ResearchProvider, type SealedKeys } from '@openpaw/contracts';
import { type KeyProvider, type StoredUserKey, UserKeyVault } from '@openpaw/providers/keys';
import type { DataSource } from 'typeorm';
import { GATEWAY_CONFIG, type GatewayConfig } from '../../config.js';
import { GATEWAY_DATA_SOURCE } from '../../projection/database.js';
import { PgUserKeyStore } from './pg-user-key-store.js';
import { type ListedKey, ProviderKeyTests } from './provider-key-tests.js';

/**
 * The users' provider keys (ADR 0014): sealed to the research service's public key
 * (`OPENPAW_KEY_SEALING_PUBLIC_KEY`; `OPENPAW_KEY_ENCRYPTION_KEY` in a development setup), bound to
 * the user and provider, and stored as ciphertext in the gateway schema. The gateway cannot open
 * one: commands carry the ciphertext, the research service opens it for the call.
 */
@Injectable()
export class ProviderKeys {
  readonly #vault: UserKeyVault | undefined;
  readonly #unavailable: string | undefined;
  readonly #store: PgUserKeyStore;
  /** The keys' latest tests (on the same rows). */
  readonly tests: ProviderKeyTests;

  constructor(@Inject(GATEWAY_DATA_SOURCE) dataSource: DataSource, @Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.#store = new PgUserKeyStore(dataSource);
    this.tests = new ProviderKeyTests(dataSource);
    try {
      this.#vault = UserKeyVault.fromEnv(config.keysEnv ?? {}, this.#store, 'seal');
    } catch (error) {
      this.#unavailable = error instanceof Error ? error.message : String(error);
    }
  }

  private vault(): UserKeyVault {
    if (this.#vault === undefined) throw new ServiceUnavailableException({ error: 'keys_not_configured', message: `per-user provider keys are not configured: ${this.#unavailable ?? ''}` });
    return this.#vault;
  }

  put(userId: string, provider: KeyProvider, apiKey: string): Promise<void> {
    return this.vault().put(userId, provider, apiKey);
  }

  delete(userId: string, provider: KeyProvider): Promise<boolean> {
    return this.#store.delete(userId, provider);
  }

  /** Which providers the user has a key for, since when, and how its latest test went (no decryption). */
  list(userId: string): Promise<ListedKey[]> {
    return this.tests.list(userId);
  }

  /** The user's keys as they are now, read once (a request checks, defaults and seals from the same read). */
  async read(userId: string): Promise<UserKeys> {
    return new UserKeys(await this.#store.list(userId));
  }

  /** The user's sealed keys of `providers` (those they have), for a command. */
  async sealedFor(userId: string, providers: readonly ResearchProvider[]): Promise<SealedKeys> {
    return (await this.read(userId)).sealedFor(providers);
  }
}

/** One user's stored keys (ciphertext), as read at one moment. */
export class UserKeys {
  constructor(private readonly records: readonly StoredUserKey[]) {}

  /** The providers the user has a key for. */
  providers(): KeyProvider[] {
    return this.records.map((r) => r.provider);
  }

  /** The user's sealed keys of `providers` (those they have), for a command. */
  sealedFor(providers: readonly ResearchProvider[]): SealedKeys {
    const keyed = KEYED_RESEARCH_PROVIDERS.filter((p) => providers.includes(p));
    const sealed: { -readonly [P in KeyedResearchProvider]?: string } = {};
    for (const record of this.records) if (keyed.includes(record.provider)) sealed[record.provider] = record.ciphertext;
    return sealed;
  }

  /** The keyed providers among `providers` the user has no key for. */
  missing(providers: readonly ResearchProvider[]): KeyedResearchProvider[] {
    const have = new Set(this.providers());
    return KEYED_RESEARCH_PROVIDERS.filter((p) => providers.includes(p) && !have.has(p));
  }
}
