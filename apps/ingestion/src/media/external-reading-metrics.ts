import { METRIC_NAMES, type PlatformMetrics } from '@openpaw/platform';
import { Counter } from 'prom-client';
import type { ExternalReadingLog } from './external-reading.js';

export const LOCAL_FALLBACKS_METRIC = METRIC_NAMES.ocrLocalFallbacks;

/**
 * `openpaw_ocr_local_fallbacks_total{reason, external}`: images read locally (PP-OCRv4) although an
 * external reader is configured, because the tenant has not allowed external reading
 * (`tenant_not_allowed`, the policy working as set) or used its calls of the period (`cap_reached`,
 * the `OpenPawExternalReadingCapReached` alert). `external` is the configured reader. Registered once
 * per application, on its metrics registry; the warning line is logged as before.
 */
export function externalReadingLog(log: Pick<ExternalReadingLog, 'warn'>, metrics: Pick<PlatformMetrics, 'registry'>, external: string): ExternalReadingLog {
  const fallbacks = new Counter({
    name: LOCAL_FALLBACKS_METRIC,
    help: 'Images read locally although an external OCR reader is configured, by reason (tenant_not_allowed, cap_reached; OPENPAW_INGESTION_EXTERNAL_READING) and the external reader.',
    labelNames: ['reason', 'external'] as const,
    registers: [metrics.registry],
  });
  return {
    warn: (fields, message) => log.warn(fields, message),
    countLocalRead: (reason) => fallbacks.inc({ reason, external }),
  };
}
