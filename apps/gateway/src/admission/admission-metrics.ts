import { Injectable, type OnModuleInit } from '@nestjs/common';
import { PlatformMetrics } from '@openpaw/platform';
import { Gauge } from 'prom-client';
import { AdmissionControl } from './admission-control.js';

/** `openpaw_admission_in_flight_runs{tier}`: runs this gateway admitted that have not ended, read at each scrape. */
@Injectable()
export class AdmissionMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: PlatformMetrics,
    private readonly admission: AdmissionControl,
  ) {}

  onModuleInit(): void {
    const admission = this.admission;
    const gauge: Gauge<'tier'> = new Gauge({
      name: 'openpaw_admission_in_flight_runs',
      help: 'Runs admitted by this gateway and not yet ended, by subscription tier (limits: OPENPAW_ADMISSION_JSON).',
      labelNames: ['tier'],
      registers: [this.metrics.registry],
      async collect() {
        try {
          for (const [tier, count] of Object.entries(await admission.inFlightByTier())) gauge.set({ tier }, count);
        } catch {
          // Projection unreachable: no reading this scrape (readiness reports the outage).
        }
      },
    });
  }
}
