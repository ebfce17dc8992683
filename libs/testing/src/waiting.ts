/** Polls `probe` until it returns a value (sync or async); fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Counts calls of the named methods, passing them through to the real adapter (a spy without a mock). */
export function counting<T extends object>(target: T, methods: readonly (keyof T & string)[]): { adapter: T; calls: Record<string, number> } {
  const calls: Record<string, number> = Object.fromEntries(methods.map((m) => [m, 0]));
  const adapter = new Proxy(target, {
    get(obj, prop, receiver) {
      const value: unknown = Reflect.get(obj, prop, receiver);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        if (typeof prop === 'string' && prop in calls) calls[prop] = (calls[prop] ?? 0) + 1;
        return fn.apply(obj, args);
      };
    },
  });
  return { adapter, calls };
}
