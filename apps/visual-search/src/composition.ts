import type { NatsConnection } from '@nats-io/nats-core';
import { jetstreamManagerWhenReady } from '@openpaw/messaging';
import { createBlobStoreFromEnv, createLlmFromEnv, createVisualProvidersFromEnv, demoPairs, type LlmCallObserver, observeLlmCalls, type ProviderLogger, type VisualWorld } from '@openpaw/providers';
import type { VisualSearchSettings } from './config.js';
import { DiscoverCandidatesHandler } from './handlers/discover-candidates/discover-candidates.handler.js';
import { SelectNextExpansionHandler } from './handlers/select-next-expansion/select-next-expansion.handler.js';
import { VerifyEdgeHandler } from './handlers/verify-edge/verify-edge.handler.js';
import { localWorldRoster } from './domain/local-world-roster.js';
import { KvEvidenceCache } from './memory/kv-evidence-cache.js';
import { KvRunMemory } from './memory/kv-run-memory.js';
import { EvidenceThumbnails } from './observation/evidence-thumbnails.js';
import { TakeDownPersonHandler } from './takedown/take-down-person.js';
import { TakedownList } from './takedown/takedown-list.js';

/** Injection token of the service's handlers (built by `createVisualSearchHandlers`). */
export const VISUAL_SEARCH_HANDLERS = Symbol('openpaw.visual-search.handlers');

export interface VisualSearchHandlers {
  readonly verifyEdge: VerifyEdgeHandler;
  readonly discoverCandidates: DiscoverCandidatesHandler;
  readonly selectNextExpansion: SelectNextExpansionHandler;
  /** What a takedown and the thumbnails' retention act on (`takeDownPerson`, `EvidenceThumbnails.deleteStoredBefore`); absent when a test supplies only step handlers. */
  readonly evidence?: { readonly takedowns: TakedownList; readonly cache: KvEvidenceCache; readonly thumbnails: EvidenceThumbnails; readonly recognizer: string };
  /** `TakeDownVisualPerson` on those stores; absent with them. */
  readonly takeDown?: TakeDownPersonHandler;
  /** The local world, when a local default is in use (the demo picks its pairs from it). */
  readonly world?: VisualWorld;
}

/** The local world's demo pairs, for `./scripts/demo.sh` and whoever tries the local default by hand. */
function logDemoPairs(world: VisualWorld, logger: ProviderLogger | undefined): void {
  const { threeHop, noPath } = demoPairs(world);
  const names = ([a, b]: readonly [number, number]) => ({ from: world.people[a]?.name ?? '', to: world.people[b]?.name ?? '' });
  logger?.info({ localWorldDemo: { threeHop: names(threeHop), noPath: names(noPath) } }, `LOCAL visual world (seed ${world.seed}): pairs for a 3-hop chain and for no path`);
}

/**
 * The service's handlers with their real ports, from its settings: image search, recognition and the
 * image fetcher (`createVisualProvidersFromEnv` on `providerEnv`: local world by default), the LLM
 * (`createLlmFromEnv`), run memory and the evidence cache in the provisioned JetStream KV buckets, and
 * evidence thumbnails in the blob store (`createBlobStoreFromEnv`: the directory or bucket every service shares).
 * The JetStream consumer calls these handlers.
 */
export async function createVisualSearchHandlers(
  nc: NatsConnection,
  settings: Pick<VisualSearchSettings, 'providerEnv' | 'refutationTtlMs' | 'allowLoopbackImageHosts'>,
  options: { readonly logger?: ProviderLogger; readonly llmCalls?: LlmCallObserver } = {},
): Promise<VisualSearchHandlers> {
  const env = settings.providerEnv;
  const { llmCalls, ...logging } = options;
  const llm = createLlmFromEnv(env, logging);
  const providers = createVisualProvidersFromEnv(env, { ...logging, allowLoopbackImageHosts: settings.allowLoopbackImageHosts === true });
  const jsm = await jetstreamManagerWhenReady(nc);
  const memory = await KvRunMemory.open(jsm);
  const cache = await KvEvidenceCache.open(jsm, { refutationTtlMs: settings.refutationTtlMs });
  if (providers.world !== undefined) logDemoPairs(providers.world, options.logger);
  const blobs = await createBlobStoreFromEnv(env, logging);
  const thumbnails = new EvidenceThumbnails(blobs);
  const takedowns = new TakedownList(blobs);
  const steps = { search: providers.imageSearch, fetcher: providers.imageFetcher, recognizer: providers.recognizer, memory, cache, thumbnails, takedowns, ...(providers.world === undefined ? {} : { localWorld: localWorldRoster(providers.world) }) };
  const evidence = { takedowns, cache, thumbnails, recognizer: providers.recognizer.provider };
  return {
    verifyEdge: new VerifyEdgeHandler(steps),
    discoverCandidates: new DiscoverCandidatesHandler(steps),
    selectNextExpansion: new SelectNextExpansionHandler({ llm: llmCalls === undefined ? llm : observeLlmCalls(llm, llmCalls), memory }),
    evidence,
    takeDown: new TakeDownPersonHandler(evidence),
    ...(providers.world !== undefined ? { world: providers.world } : {}),
  };
}
