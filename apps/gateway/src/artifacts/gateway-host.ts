import { Injectable, type Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config.js';
import { RunProjectionStore } from '../projection/run-projection.store.js';
import { RunSubmitter } from '../runs/submit/run-submitter.js';

/**
 * What the artifact routes use from the gateway module that imports them: `RunSubmitter`, the run
 * projection and the gateway's configuration. This module is imported by `GatewayModule` and cannot
 * import it back, so they are looked up once, lazily, in the application's container.
 */
@Injectable()
export class GatewayHost {
  private readonly cache = new Map<unknown, unknown>();

  constructor(private readonly moduleRef: ModuleRef) {}

  get submitter(): RunSubmitter {
    return this.resolve(RunSubmitter);
  }

  get runs(): RunProjectionStore {
    return this.resolve(RunProjectionStore);
  }

  get config(): GatewayConfig {
    return this.resolve<GatewayConfig>(GATEWAY_CONFIG);
  }

  private resolve<T>(token: Type<T> | symbol): T {
    if (!this.cache.has(token)) this.cache.set(token, this.moduleRef.get<T>(token, { strict: false }));
    return this.cache.get(token) as T;
  }
}
