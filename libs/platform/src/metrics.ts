import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The metric set every OpenPaw service exposes on `/metrics`. One registry per application (not
 * prom-client's global one), so several apps in one process (tests) never collide.
 * Metric names and labels are part of the dashboards' contract: change them with care.
 */
export const METRIC_NAMES = {
  messagesHandled: 'openpaw_messages_handled_total',
  messagesDeadLettered: 'openpaw_messages_dead_lettered_total',
  handlerDuration: 'openpaw_handler_duration_seconds',
  sagaTransitions: 'openpaw_saga_transitions_total',
  outboxLag: 'openpaw_outbox_lag_seconds',
  timerLag: 'openpaw_timer_lag_seconds',
  lanePending: 'openpaw_lane_pending_messages',
  httpRequests: 'openpaw_http_requests_total',
  httpRequestDuration: 'openpaw_http_request_duration_seconds',
  llmAttempts: 'openpaw_llm_attempts_total',
  llmAttemptDuration: 'openpaw_llm_attempt_duration_seconds',
  llmTokens: 'openpaw_llm_tokens_total',
  llmCost: 'openpaw_llm_cost_usd_total',
  /** Registered by ingestion alone (`apps/ingestion/src/media/external-reading-metrics.ts`). */
  ocrLocalFallbacks: 'openpaw_ocr_local_fallbacks_total',
  runsInProgress: 'openpaw_runs_in_progress',
  runsOldestIdle: 'openpaw_runs_oldest_idle_seconds',
} as const;

/** Runs of one workflow type in one state that wait for machine work (not terminal, not for a person). */
export interface IdleRunsReading {
  readonly workflowType: string;
  readonly state: string;
  readonly runs: number;
  /** Seconds since the least recently stepped of them last took a step. */
  readonly oldestIdleSeconds: number;
}

/**
 * One read of `source` shared by the gauges collected in the same scrape (a second later it reads
 * again); a failed read yields no samples this scrape.
 */
function sharedReading<T>(source: () => Promise<readonly T[]>): () => Promise<readonly T[]> {
  let latest: Promise<readonly T[]> | undefined;
  return () => {
    latest ??= source().finally(() => setTimeout(() => (latest = undefined), 1_000).unref());
    return latest.catch(() => []);
  };
}

/** One lane consumer's backlog as JetStream reports it. */
export interface LaneBacklogReading {
  readonly lane: string;
  readonly pending: number;
  readonly ackPending: number;
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** LLM calls: a short completion to an hour-long research leg. */
const LLM_BUCKETS = [0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 900, 3600];
const LAG_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * How often the event-loop lag monitor samples (ms). prom-client's default, 10 ms, is a timer that wakes
 * every idle service 100 times a second (measured: ~160 wake-ups/s per process, the largest part of the
 * platform's idle CPU); at 100 ms a stall still shows in the lag percentiles, with 10× fewer wake-ups.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export class PlatformMetrics {
  readonly registry = new Registry();
  readonly messagesHandled: Counter<'service' | 'subject' | 'outcome'>;
  readonly messagesDeadLettered: Counter<'service' | 'subject'>;
  readonly handlerDuration: Histogram<'service' | 'subject'>;
  readonly sagaTransitions: Counter<'workflow_type' | 'state'>;
  readonly outboxLag: Histogram;
  readonly timerLag: Histogram;
  readonly lanePending: Gauge<'service' | 'lane' | 'state'>;
  readonly httpRequests: Counter<'service' | 'method' | 'route' | 'status'>;
  readonly llmAttempts: Counter<'service' | 'provider' | 'model' | 'outcome'>;
  readonly llmAttemptDuration: Histogram<'service' | 'provider' | 'model'>;
  readonly llmTokens: Counter<'service' | 'provider' | 'model' | 'direction'>;
  readonly llmCost: Counter<'service' | 'provider' | 'model'>;
  readonly httpRequestDuration: Histogram<'service' | 'method' | 'route'>;
  #laneBacklogs: (() => Promise<readonly LaneBacklogReading[]>) | undefined;

  constructor(
    readonly service: string,
    options: { readonly defaultMetrics?: boolean } = {},
  ) {
    const registers = [this.registry];
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    this.messagesHandled = new Counter({
      name: METRIC_NAMES.messagesHandled,
      help: 'Messages handled, by outcome (ack, retry, reject).',
      labelNames: ['service', 'subject', 'outcome'],
      registers,
    });
    this.messagesDeadLettered = new Counter({
      name: METRIC_NAMES.messagesDeadLettered,
      help: 'Messages moved to the dead-letter subject.',
      labelNames: ['service', 'subject'],
      registers,
    });
    this.handlerDuration = new Histogram({
      name: METRIC_NAMES.handlerDuration,
      help: 'Time spent in message handlers.',
      labelNames: ['service', 'subject'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.sagaTransitions = new Counter({
      name: METRIC_NAMES.sagaTransitions,
      help: 'Saga transitions applied, by workflow type and the state entered.',
      labelNames: ['workflow_type', 'state'],
      registers,
    });
    this.outboxLag = new Histogram({
      name: METRIC_NAMES.outboxLag,
      help: 'Time from an outbox row being written to its publication.',
      buckets: LAG_BUCKETS,
      registers,
    });
    this.timerLag = new Histogram({
      name: METRIC_NAMES.timerLag,
      help: 'Time from a durable timer being due to it firing.',
      buckets: LAG_BUCKETS,
      registers,
    });
    this.httpRequests = new Counter({
      name: METRIC_NAMES.httpRequests,
      help: 'HTTP requests answered, by method, route template (`unmatched` when no route matched) and status code.',
      labelNames: ['service', 'method', 'route', 'status'],
      registers,
    });
    this.httpRequestDuration = new Histogram({
      name: METRIC_NAMES.httpRequestDuration,
      help: 'Time from an HTTP request arriving to its response finishing, by method and route template.',
      labelNames: ['service', 'method', 'route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.llmAttempts = new Counter({
      name: METRIC_NAMES.llmAttempts,
      help: 'LLM attempts by provider, model (`provider/model`) and outcome (ok, rate_limited, timeout, auth, skipped_cooldown, ...).',
      labelNames: ['service', 'provider', 'model', 'outcome'],
      registers,
    });
    this.llmAttemptDuration = new Histogram({
      name: METRIC_NAMES.llmAttemptDuration,
      help: 'Time of each LLM attempt that sent a request, by provider and model.',
      labelNames: ['service', 'provider', 'model'],
      buckets: LLM_BUCKETS,
      registers,
    });
    this.llmTokens = new Counter({
      name: METRIC_NAMES.llmTokens,
      help: 'Tokens of answered LLM calls, by provider, answering model and direction (input, output).',
      labelNames: ['service', 'provider', 'model', 'direction'],
      registers,
    });
    this.llmCost = new Counter({
      name: METRIC_NAMES.llmCost,
      help: "Cost in USD of answered LLM calls as the price table computes it, by provider and answering model.",
      labelNames: ['service', 'provider', 'model'],
      registers,
    });
    this.lanePending = new Gauge({
      name: METRIC_NAMES.lanePending,
      help: 'Commands of each lane this process consumes: pending (stored, not delivered) and ack_pending (being handled).',
      labelNames: ['service', 'lane', 'state'],
      registers,
      collect: () => this.#collectLanePending(),
    });
  }

  async #collectLanePending(): Promise<void> {
    const source = this.#laneBacklogs;
    if (source === undefined) return;
    this.lanePending.reset();
    try {
      for (const reading of await source()) {
        this.lanePending.set({ service: this.service, lane: reading.lane, state: 'pending' }, reading.pending);
        this.lanePending.set({ service: this.service, lane: reading.lane, state: 'ack_pending' }, reading.ackPending);
      }
    } catch {
      // NATS unreachable: no reading this scrape (readiness reports the outage).
    }
  }

  /** Where `/metrics` reads the lanes' backlogs from at each scrape (the service's messaging host). */
  readLaneBacklogsFrom(source: () => Promise<readonly LaneBacklogReading[]>): void {
    this.#laneBacklogs = source;
  }

  recordHandled(subject: string, outcome: string, durationMs: number): void {
    this.messagesHandled.inc({ service: this.service, subject, outcome });
    this.handlerDuration.observe({ service: this.service, subject }, Math.max(0, durationMs) / 1000);
  }

  recordHttpRequest(method: string, route: string, status: number, durationMs: number): void {
    this.httpRequests.inc({ service: this.service, method, route, status: String(status) });
    this.httpRequestDuration.observe({ service: this.service, method, route }, Math.max(0, durationMs) / 1000);
  }

  /**
   * What a service's LLM client reports (`observeLlmCalls` of `@openpaw/providers` takes it as its
   * observer): each attempt, and the tokens and cost of each answered call.
   */
  readonly llmCalls = {
    onAttempt: (attempt: { readonly provider: string; readonly model: string; readonly outcome: string; readonly latencyMs?: number }): void => {
      const labels = { service: this.service, provider: attempt.provider, model: attempt.model };
      this.llmAttempts.inc({ ...labels, outcome: attempt.outcome });
      if (attempt.latencyMs !== undefined) this.llmAttemptDuration.observe(labels, Math.max(0, attempt.latencyMs) / 1000);
    },
    onAnswered: (answer: { readonly provider: string; readonly model: string; readonly inputTokens: number; readonly outputTokens: number; readonly costUsd: number }): void => {
      const labels = { service: this.service, provider: answer.provider, model: answer.model };
      this.llmTokens.inc({ ...labels, direction: 'input' }, Math.max(0, answer.inputTokens));
      this.llmTokens.inc({ ...labels, direction: 'output' }, Math.max(0, answer.outputTokens));
      this.llmCost.inc(labels, Math.max(0, answer.costUsd));
    },
  };

  recordDeadLettered(subject: string): void {
    this.messagesDeadLettered.inc({ service: this.service, subject });
  }

  recordSagaTransition(workflowType: string, state: string): void {
    this.sagaTransitions.inc({ workflow_type: workflowType, state });
  }

  recordOutboxLag(seconds: number): void {
    this.outboxLag.observe(Math.max(0, seconds));
  }

  recordTimerLag(seconds: number): void {
    this.timerLag.observe(Math.max(0, seconds));
  }

  /**
   * `openpaw_table_size_bytes` and `openpaw_table_rows_estimate` by table, read from `source` at
   * each scrape (so a table that grows without bound shows before it hurts). One source per registry.
   */
  watchTableSizes(source: () => Promise<readonly { readonly table: string; readonly bytes: number; readonly rows: number }[]>): void {
    // Both gauges are collected in one scrape: read the sizes once for the pair.
    const read = sharedReading(source);
    new Gauge({
      name: 'openpaw_table_size_bytes',
      help: 'Size on disk of a table with its indexes and TOAST.',
      labelNames: ['table'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const size of await read()) this.set({ table: size.table }, size.bytes);
      },
    });
    new Gauge({
      name: 'openpaw_table_rows_estimate',
      help: "The planner's row estimate of a table.",
      labelNames: ['table'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const size of await read()) this.set({ table: size.table }, size.rows);
      },
    });
  }

  /**
   * `openpaw_runs_in_progress` and `openpaw_runs_oldest_idle_seconds` by workflow type and state, read
   * from `source` at each scrape (the coordinator's runs table): what the stuck-runs alert watches.
   */
  watchIdleRuns(source: () => Promise<readonly IdleRunsReading[]>): void {
    const read = sharedReading(source);
    const labels = (r: IdleRunsReading) => ({ workflow_type: r.workflowType, state: r.state });
    new Gauge({
      name: METRIC_NAMES.runsInProgress,
      help: 'Runs waiting for machine work (not terminal, not waiting for a person), by workflow type and state.',
      labelNames: ['workflow_type', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const reading of await read()) this.set(labels(reading), reading.runs);
      },
    });
    new Gauge({
      name: METRIC_NAMES.runsOldestIdle,
      help: 'Seconds since the least recently stepped of those runs took a step, by workflow type and state.',
      labelNames: ['workflow_type', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const reading of await read()) this.set(labels(reading), reading.oldestIdleSeconds);
      },
    });
  }

  /** The Prometheus text exposition and its content type. */
  async scrape(): Promise<{ readonly contentType: string; readonly body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
