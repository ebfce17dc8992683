import type { ProviderLogger } from '../shared/logger.js';

export interface LogLine {
  readonly level: 'info' | 'warn';
  readonly obj: object;
  readonly msg: string;
}

/** A ProviderLogger that keeps every line, for assertions on what was logged. */
export function recordingLogger(): ProviderLogger & { readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
  };
}
