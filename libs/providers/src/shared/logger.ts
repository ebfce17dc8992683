/**
 * The slice of a pino logger the providers use. Any pino (or nestjs-pino) logger satisfies it;
 * a test passes `pino({ level: 'silent' })` or a recording stub.
 */
export interface ProviderLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export const silentLogger: ProviderLogger = {
  info: () => undefined,
  warn: () => undefined,
};
