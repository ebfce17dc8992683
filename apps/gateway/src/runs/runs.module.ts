import { type DynamicModule, Module } from '@nestjs/common';
import { MESSAGE_PUBLISHER } from '@openpaw/messaging';
import { blobProviders, BLOB_STORE, ShareLinkVerifier } from '../assets/blobs/blob-store.provider.js';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { RunEventBus } from '../events/run-event-bus.js';
import { databaseProviders, GATEWAY_DATA_SOURCE } from '../projection/database.js';
import { RunProjectionStore } from '../projection/run-projection.store.js';
import { RunTransitionStore } from '../projection/run-transition.store.js';
import { AssetProjectionStore } from '../assets/projection/asset-projection.store.js';
import { COMMAND_PUBLISHER } from './ports.js';
import { StoredPaperLists } from '../paper-searches/export/stored-paper-lists.js';
import { RunResources } from './run-resources.js';
import { RunSubmitter } from './submit/run-submitter.js';

/**
 * What every route module of the gateway builds on: its configuration, the projection (runs and
 * assets), submitting runs, the live run events and the blob store. Global, so feature modules
 * (problems, artifacts, ...) inject these directly rather than looking them up.
 */
@Module({})
export class RunsModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: RunsModule,
      global: true,
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: COMMAND_PUBLISHER, useExisting: MESSAGE_PUBLISHER },
        ...databaseProviders,
        ...blobProviders,
        RunEventBus,
        RunSubmitter,
        StoredPaperLists,
        RunResources,
      ],
      exports: [GATEWAY_CONFIG, COMMAND_PUBLISHER, GATEWAY_DATA_SOURCE, RunProjectionStore, RunTransitionStore, AssetProjectionStore, BLOB_STORE, ShareLinkVerifier, RunEventBus, RunSubmitter, StoredPaperLists, RunResources],
    };
  }
}
