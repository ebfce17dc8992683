import type { PlatformMetrics } from './metrics.js';

/**
 * What messaging reports about each message it consumes. Structurally identical to
 * `@openpaw/messaging`'s `MessagingObserver`, declared here so the platform does not depend on the
 * messaging lib (messaging may depend on the platform's helpers instead).
 */
export interface MessagingObserver {
  onHandled(subject: string, outcomeKind: string, durationMs: number): void;
  onDeadLettered(subject: string, reason: string): void;
}

/** Feeds messaging's observations into the shared Prometheus metric set. */
export class MetricsMessagingObserver implements MessagingObserver {
  constructor(private readonly metrics: PlatformMetrics) {}

  onHandled(subject: string, outcomeKind: string, durationMs: number): void {
    this.metrics.recordHandled(subject, outcomeKind, durationMs);
  }

  onDeadLettered(subject: string, _reason: string): void {
    this.metrics.recordDeadLettered(subject);
  }
}
