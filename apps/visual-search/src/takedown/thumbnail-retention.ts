import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { MessageLogContext } from '@openpaw/platform';
import { VISUAL_SEARCH_HANDLERS, type VisualSearchHandlers } from '../composition.js';
import type { VisualSearchSettings } from '../config.js';

/** Injection token of the retention's settings. */
export const THUMBNAIL_RETENTION_SETTINGS = Symbol('openpaw.visual-search.thumbnail-retention');

/** How often the sweep runs: the retention is days, an hour late is nothing. */
export const THUMBNAIL_SWEEP_EVERY_MS = 60 * 60_000;

/**
 * Evidence photos are kept `thumbnailRetentionMs` and no longer: every replica deletes the older ones at
 * start and then hourly (deletes are idempotent, so replicas sweeping together only repeat work).
 */
@Injectable()
export class ThumbnailRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    @Inject(VISUAL_SEARCH_HANDLERS) private readonly handlers: VisualSearchHandlers,
    @Inject(THUMBNAIL_RETENTION_SETTINGS) private readonly settings: Pick<VisualSearchSettings, 'thumbnailRetentionMs'>,
    private readonly log: MessageLogContext,
  ) {}

  onApplicationBootstrap(): void {
    if (this.handlers.evidence === undefined) return;
    this.sweep();
    this.timer = setInterval(() => this.sweep(), THUMBNAIL_SWEEP_EVERY_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  private sweep(): void {
    const thumbnails = this.handlers.evidence?.thumbnails;
    if (thumbnails === undefined || this.sweeping !== undefined) return;
    const cutoff = new Date(Date.now() - this.settings.thumbnailRetentionMs);
    this.sweeping = thumbnails
      .deleteStoredBefore(cutoff)
      .then((deleted) => this.log.info({ deleted, cutoff: cutoff.toISOString() }, 'evidence thumbnails past their retention deleted'))
      .catch((error: unknown) => this.log.warn({ err: error }, 'evidence thumbnail retention sweep failed; next one in an hour'))
      .finally(() => (this.sweeping = undefined));
  }
}
