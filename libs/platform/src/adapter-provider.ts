import type { Provider } from '@nestjs/common';
import { MessageLogContext } from './logging.js';
import { PlatformMetrics } from './metrics.js';

/**
 * An adapter (LLM, blob store, embedder, ...) under its token: the one the caller supplied (a test, an
 * embedding process), else the one built from the deployment's configuration, logging through the
 * service's message-aware logger and reporting on its metrics (e.g. `metrics.llmCalls`).
 */
export function adapterProvider<T>(token: symbol, given: T | undefined, build: (log: MessageLogContext, metrics: PlatformMetrics) => T | Promise<T>): Provider {
  return given !== undefined ? { provide: token, useValue: given } : { provide: token, inject: [MessageLogContext, PlatformMetrics], useFactory: build };
}
