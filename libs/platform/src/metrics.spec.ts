import { MetricsMessagingObserver } from './messaging-observer.js';
import { PlatformMetrics } from './metrics.js';

describe('PlatformMetrics', () => {
  it('exposes the shared metric set and feeds it from messaging observations', async () => {
    const metrics = new PlatformMetrics('ingestion', { defaultMetrics: false });
    const observer = new MetricsMessagingObserver(metrics);
    observer.onHandled('openpaw.cmd.ingestion.NormalizeMedia.v1', 'ack', 12);
    observer.onHandled('openpaw.cmd.ingestion.NormalizeMedia.v1', 'retry', 3);
    observer.onDeadLettered('openpaw.cmd.ingestion.NormalizeMedia.v1', 'invalid data');
    metrics.recordSagaTransition('SolveWorkflow', 'GENERATING');
    metrics.recordOutboxLag(0.004);
    metrics.recordTimerLag(0.2);

    const { contentType, body } = await metrics.scrape();
    expect(contentType).toContain('text/plain');
    expect(body).toContain(
      'openpaw_messages_handled_total{service="ingestion",subject="openpaw.cmd.ingestion.NormalizeMedia.v1",outcome="ack"} 1',
    );
    expect(body).toContain('outcome="retry"} 1');
    expect(body).toContain('openpaw_messages_dead_lettered_total{service="ingestion",subject="openpaw.cmd.ingestion.NormalizeMedia.v1"} 1');
    expect(body).toContain('openpaw_handler_duration_seconds_count{service="ingestion",subject="openpaw.cmd.ingestion.NormalizeMedia.v1"} 2');
    expect(body).toContain('openpaw_saga_transitions_total{workflow_type="SolveWorkflow",state="GENERATING"} 1');
    expect(body).toContain('openpaw_outbox_lag_seconds_count 1');
    expect(body).toContain('openpaw_timer_lag_seconds_count 1');
  });

  it('exposes table sizes read at scrape time', async () => {
    const metrics = new PlatformMetrics('coordinator', { defaultMetrics: false });
    let bytes = 8192;
    metrics.watchTableSizes(() => Promise.resolve([{ table: 'coordinator.inbox', bytes, rows: 12 }]));
    expect((await metrics.scrape()).body).toContain('openpaw_table_size_bytes{table="coordinator.inbox"} 8192');
    expect((await metrics.scrape()).body).toContain('openpaw_table_rows_estimate{table="coordinator.inbox"} 12');
    bytes = 16384;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await metrics.scrape()).body).toContain('openpaw_table_size_bytes{table="coordinator.inbox"} 16384');
  });

  it('exposes the runs waiting for machine work and their oldest idle time, read once per scrape, none when the read fails', async () => {
    const metrics = new PlatformMetrics('coordinator', { defaultMetrics: false });
    let reads = 0;
    let failing = false;
    metrics.watchIdleRuns(() => {
      reads += 1;
      return failing ? Promise.reject(new Error('database down')) : Promise.resolve([{ workflowType: 'solve_workflow', state: 'GENERATING', runs: 3, oldestIdleSeconds: 1250.5 }]);
    });
    const { body } = await metrics.scrape();
    expect(body).toContain('openpaw_runs_in_progress{workflow_type="solve_workflow",state="GENERATING"} 3');
    expect(body).toContain('openpaw_runs_oldest_idle_seconds{workflow_type="solve_workflow",state="GENERATING"} 1250.5');
    expect(reads).toBe(1);
    failing = true;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await metrics.scrape()).body).not.toContain('workflow_type="solve_workflow"');
  });

  it('exposes LLM attempts, their latency, and the tokens and cost of answered calls, by provider and model', async () => {
    const metrics = new PlatformMetrics('solve', { defaultMetrics: false });
    metrics.llmCalls.onAttempt({ provider: 'openai', model: 'openai/gpt-4o-mini', outcome: 'rate_limited', latencyMs: 300 });
    metrics.llmCalls.onAttempt({ provider: 'openai', model: 'openai/gpt-4o-mini', outcome: 'ok', latencyMs: 1_800 });
    metrics.llmCalls.onAttempt({ provider: 'anthropic', model: 'anthropic/claude-haiku-4-5', outcome: 'skipped_cooldown' });
    metrics.llmCalls.onAnswered({ provider: 'openai', model: 'openai/gpt-4o-mini', inputTokens: 1200, outputTokens: 340, costUsd: 0.0004 });
    const { body } = await metrics.scrape();
    const labels = 'service="solve",provider="openai",model="openai/gpt-4o-mini"';
    expect(body).toContain(`openpaw_llm_attempts_total{${labels},outcome="rate_limited"} 1`);
    expect(body).toContain(`openpaw_llm_attempts_total{${labels},outcome="ok"} 1`);
    expect(body).toContain('openpaw_llm_attempts_total{service="solve",provider="anthropic",model="anthropic/claude-haiku-4-5",outcome="skipped_cooldown"} 1');
    expect(body).toContain(`openpaw_llm_attempt_duration_seconds_count{${labels}} 2`);
    expect(body).not.toContain('openpaw_llm_attempt_duration_seconds_count{service="solve",provider="anthropic"');
    expect(body).toContain(`openpaw_llm_tokens_total{${labels},direction="input"} 1200`);
    expect(body).toContain(`openpaw_llm_tokens_total{${labels},direction="output"} 340`);
    expect(body).toContain(`openpaw_llm_cost_usd_total{${labels}} 0.0004`);
  });

  it("exposes each lane's consumer lag (pending and being handled), read at scrape time; none when NATS cannot be read", async () => {
    const metrics = new PlatformMetrics('research', { defaultMetrics: false });
    let failing = false;
    metrics.readLaneBacklogsFrom(() =>
      failing
        ? Promise.reject(new Error('NATS down'))
        : Promise.resolve([
            { lane: 'critical', pending: 0, ackPending: 2 },
            { lane: 'research', pending: 17, ackPending: 4 },
          ]),
    );
    const { body } = await metrics.scrape();
    expect(body).toContain('openpaw_lane_pending_messages{service="research",lane="research",state="pending"} 17');
    expect(body).toContain('openpaw_lane_pending_messages{service="research",lane="research",state="ack_pending"} 4');
    expect(body).toContain('openpaw_lane_pending_messages{service="research",lane="critical",state="ack_pending"} 2');
    failing = true;
    expect((await metrics.scrape()).body).not.toContain('lane="research"');
  });

  it('keeps one registry per application', async () => {
    const a = new PlatformMetrics('a', { defaultMetrics: false });
    const b = new PlatformMetrics('b');
    a.recordDeadLettered('x');
    expect((await b.scrape()).body).not.toContain('subject="x"');
    expect((await b.scrape()).body).toContain('process_cpu_user_seconds_total');
  });
});
