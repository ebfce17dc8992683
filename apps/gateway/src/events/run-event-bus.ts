import { Injectable } from '@nestjs/common';
import type { InputRefused, MessageData, RunStateChanged } from '@openpaw/contracts';
import type { RunProjection } from '../projection/run-projection.store.js';

/** What the gateway hears about runs, as it happens (from the core NATS subscription). */
export type RunEvent =
  | {
      readonly kind: 'stateChanged';
      readonly messageId: string;
      readonly data: MessageData<typeof RunStateChanged>;
      /** The run as the projection holds it after this event, when this replica wrote the event through (so a listener need not read it back). */
      readonly projected?: RunProjection;
    }
  | { readonly kind: 'inputRefused'; readonly messageId: string; readonly data: MessageData<typeof InputRefused> };

export type RunEventListener = (event: RunEvent) => void;

/**
 * In-process fan-out of run events to the requests waiting on them (SSE streams, cancel, awaitRun).
 * Every gateway replica feeds its own bus from a core NATS subscription, so each sees every event.
 */
@Injectable()
export class RunEventBus {
  private readonly listeners = new Map<string, Set<RunEventListener>>();

  /** Delivers an event to the listeners of its run; a throwing listener does not stop the others. */
  publish(event: RunEvent): void {
    const listeners = this.listeners.get(event.data.runId);
    if (listeners === undefined) return;
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's failure is its own (its request ends); the bus goes on.
      }
    }
  }

  /** Whether a request on this replica listens to the run (its events are worth writing through at once). */
  isWatched(runId: string): boolean {
    return this.listeners.has(runId);
  }

  /** Listens to one run's events; returns the function that stops listening. */
  subscribe(runId: string, listener: RunEventListener): () => void {
    let listeners = this.listeners.get(runId);
    if (listeners === undefined) {
      listeners = new Set();
      this.listeners.set(runId, listeners);
    }
    listeners.add(listener);
    return () => {
      const current = this.listeners.get(runId);
      if (current === undefined) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(runId);
    };
  }

  /**
   * Resolves with the first value `match` returns for an event of `runId`, or `undefined` after
   * `timeoutMs` (or when `signal` aborts). Subscribe-then-act: call it before publishing the
   * command whose answer it waits for.
   */
  waitFor<T>(
    runId: string,
    match: (event: RunEvent) => T | undefined,
    options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
  ): { readonly result: Promise<T | undefined>; cancel(): void } {
    let cancel: () => void = () => undefined;
    const result = new Promise<T | undefined>((resolve) => {
      const finish = (value: T | undefined): void => {
        clearTimeout(timer);
        unsubscribe();
        options.signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = (): void => finish(undefined);
      const timer = setTimeout(() => finish(undefined), options.timeoutMs);
      const unsubscribe = this.subscribe(runId, (event) => {
        const value = match(event);
        if (value !== undefined) finish(value);
      });
      options.signal?.addEventListener('abort', onAbort, { once: true });
      cancel = () => finish(undefined);
      if (options.signal?.aborted === true) finish(undefined);
    });
    return { result, cancel };
  }

  /** Number of runs with listeners (for tests and metrics). */
  get listenedRuns(): number {
    return this.listeners.size;
  }
}
