import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { adapterProvider, databaseReadiness, MessageLogContext, PlatformMetrics, PlatformModule, ReadinessRegistry, ServiceMessagingModule } from '@openpaw/platform';
import { type BlobStore, createBlobStoreFromEnv } from '@openpaw/providers';
import type { DataSource } from 'typeorm';
import type { IngestionSettings } from './config.js';
import { NormalizeMediaHandler } from './handlers/normalize-media/normalize-media.handler.js';
import { OcrLifecycle } from './media/ocr-lifecycle.js';
import { ExternalReadingGate, PgExternalReadQuota } from './media/external-reading.js';
import { externalReadingLog } from './media/external-reading-metrics.js';
import { createOcrReaders } from './media/ocr-reader.js';
import { createUrlFetcher } from './media/url-fetcher.js';
import { IngestionCommandsConsumer } from './messaging/ingestion-commands.consumer.js';
import { databaseProviders, INGESTION_DATA_SOURCE } from './persistence/database.js';
import { INGESTION_BLOBS, INGESTION_OCR, INGESTION_SETTINGS, INGESTION_URL_FETCHER } from './ports.js';

export const SERVICE_NAME = 'ingestion';

/** Adapters a test (or an embedding process) may supply instead of the ones built from env. */
export interface IngestionAdapters {
  readonly blobs?: BlobStore;
}

/**
 * The ingestion service: answers `NormalizeMedia` (consumed from `openpaw.cmd.ingestion.>`) with
 * `MediaNormalized` or `MediaRejected`. Upload bytes and normalised images live in blob storage
 * (`@openpaw/providers`, the local filesystem by default); images are read through the OCR port
 * (`@openpaw/providers/ocr`, PP-OCRv4 in long-lived worker processes by default; ADR 0027); answered
 * commands are kept in the `ingestion` schema.
 */
@Module({})
export class IngestionModule implements OnModuleInit {
  constructor(
    private readonly readiness: ReadinessRegistry,
    private readonly log: MessageLogContext,
    @Inject(INGESTION_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(INGESTION_SETTINGS) private readonly settings: IngestionSettings,
  ) {}

  static forRoot(settings: IngestionSettings, adapters: IngestionAdapters = {}): DynamicModule {
    const blobs = adapterProvider(INGESTION_BLOBS, adapters.blobs, (log) => createBlobStoreFromEnv(settings.providerEnv, { logger: log }));
    return {
      module: IngestionModule,
      imports: [
        PlatformModule.forService(SERVICE_NAME),
        ServiceMessagingModule.forService(SERVICE_NAME, { ...settings.messaging, concurrency: settings.concurrency }),
      ],
      providers: [
        { provide: INGESTION_SETTINGS, useValue: settings },
        blobs,
        {
          provide: INGESTION_OCR,
          inject: [INGESTION_DATA_SOURCE, MessageLogContext, PlatformMetrics],
          // The configured reader behind the tenants' external-reading policy (a local reader needs none); each local fallback is logged and counted.
          useFactory: (dataSource: DataSource, log: MessageLogContext, metrics: PlatformMetrics) => {
            const { configured, local } = createOcrReaders(settings.ocr, settings.providerEnv);
            return new ExternalReadingGate(configured, local, settings.externalReading, new PgExternalReadQuota(dataSource), externalReadingLog(log, metrics, settings.ocr.reader));
          },
        },
        { provide: INGESTION_URL_FETCHER, useFactory: () => createUrlFetcher(settings.fetch) },
        ...databaseProviders,
        OcrLifecycle,
        NormalizeMediaHandler,
        IngestionCommandsConsumer,
      ],
    };
  }

  onModuleInit(): void {
    this.readiness.register(databaseReadiness('database', this.dataSource));
    if (this.settings.fetch.allowAddressClasses.length > 0 || this.settings.fetch.resolver !== undefined) {
      this.log.warn(
        { allowAddressClasses: this.settings.fetch.allowAddressClasses, testResolver: this.settings.fetch.resolver !== undefined },
        'TEST-ONLY URL fetching is on: submitted URLs may reach non-public addresses; never run a deployment like this',
      );
    }
  }
}
