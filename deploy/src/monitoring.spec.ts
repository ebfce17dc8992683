import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { laneDurableOf } from '@openpaw/contracts';
import { MESSAGE_COUNTER_METRICS, METRIC_NAMES } from '@openpaw/platform';
import { MESSAGES_PER_TRANSITION_ALERT, RUNBOOK_ALERTS_URL, stepLatencyAlertSeconds, STUCK_RUN_MINUTES } from './monitoring.js';
import { renderPlatform, type K8sObject } from './render.js';
import { schemaError } from './schema-validation.js';
import { DEFAULT_SETTINGS } from './settings.js';

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly for: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
}

const rendered = renderPlatform(DEFAULT_SETTINGS);
const ruleObject = rendered.platform.find((o) => o.kind === 'PrometheusRule') as (K8sObject & { spec: { groups: { name: string; rules: Rule[] }[] } }) | undefined;
const rules = ruleObject?.spec.groups.flatMap((g) => g.rules) ?? [];
const runbook = readFileSync(join(import.meta.dirname, '../../docs/ops/runbook.md'), 'utf8');

describe('PrometheusRules rendered with the manifests', () => {
  it('is one PrometheusRule beside the ServiceMonitor, valid against the prometheus-operator schema, with its release label', () => {
    expect(ruleObject).toBeDefined();
    expect(schemaError(ruleObject as K8sObject)).toBeUndefined();
    const monitor = rendered.platform.find((o) => o.kind === 'ServiceMonitor');
    expect(ruleObject?.metadata.labels).toEqual(monitor?.metadata.labels);
    expect(new Set(rules.map((r) => r.alert))).toEqual(new Set(['OpenPawStepLatencyHigh', 'OpenPawDeadLettersGrowing', 'OpenPawConsumerLagBeyondScaling', 'OpenPawHttp5xxHigh', 'OpenPawRunsStuck', 'OpenPawMessagesPerStepHigh', 'OpenPawLlmCostHigh', 'OpenPawExternalReadingCapReached']));
  });

  it('queries only metrics the services register (a renamed metric fails here, not silently in Prometheus)', () => {
    const registered = new Set<string>([...Object.values(METRIC_NAMES), ...Object.values(MESSAGE_COUNTER_METRICS)]);
    const queried = new Set(rules.flatMap((r) => [...r.expr.matchAll(/openpaw_[a-z_]+/g)].map((m) => m[0].replace(/_bucket$/, ''))));
    expect([...queried].filter((name) => !registered.has(name))).toEqual([]);
    for (const rule of rules) {
      const opened = [...rule.expr].filter((c) => c === '(').length;
      expect({ alert: rule.alert, unbalanced: opened !== [...rule.expr].filter((c) => c === ')').length }).toEqual({ alert: rule.alert, unbalanced: false });
    }
  });

  it('has a consumer-lag alert for exactly the lanes KEDA scales, above what their replicas take at most', () => {
    const scaled = rendered.keda.flatMap((o) => ((o as unknown as { spec: { triggers: { type: string; metadata: Record<string, string> }[] } }).spec.triggers ?? []).filter((t) => t.type === 'nats-jetstream').map((t) => ({ consumer: t.metadata['consumer'] ?? '', threshold: Number(t.metadata['lagThreshold']) })));
    const lagRules = rules.filter((r) => r.alert === 'OpenPawConsumerLagBeyondScaling');
    expect(lagRules.map((r) => laneDurableOf(r.labels['service'] ?? '', r.labels['lane'] ?? '')).sort()).toEqual(scaled.map((s) => s.consumer).sort());
    for (const rule of lagRules) {
      const threshold = scaled.find((s) => s.consumer === laneDurableOf(rule.labels['service'] ?? '', rule.labels['lane'] ?? ''))?.threshold ?? Number.NaN;
      const bound = Number(/> (\d+)$/.exec(rule.expr)?.[1]);
      expect({ lane: rule.labels['lane'], multipleOfThreshold: bound % threshold === 0 && bound > threshold }).toEqual({ lane: rule.labels['lane'], multipleOfThreshold: true });
    }
  });

  it('alerts on a critical-lane step at half its drain budget, 30 s at most; on any dead letter; above the messages-per-step design', () => {
    expect([stepLatencyAlertSeconds(10), stepLatencyAlertSeconds(30), stepLatencyAlertSeconds(120)]).toEqual([5, 15, 30]);
    const solve = rules.find((r) => r.alert === 'OpenPawStepLatencyHigh' && r.labels['service'] === 'solve');
    expect(solve?.expr).toContain('openpaw\\\\.cmd\\\\.solve\\\\.');
    expect(solve?.expr).toMatch(/> 30$/);
    expect(rules.find((r) => r.alert === 'OpenPawDeadLettersGrowing')?.expr).toBe('sum by (service, subject) (increase(openpaw_messages_dead_lettered_total[15m])) > 0');
    expect(rules.find((r) => r.alert === 'OpenPawMessagesPerStepHigh')?.expr).toMatch(new RegExp(`> ${MESSAGES_PER_TRANSITION_ALERT}$`));
  });

  it('alerts on a run with no step past its workflow\'s stuck threshold, every workflow covered once, from the coordinator\'s idle-runs gauge', () => {
    const stuck = rules.filter((r) => r.alert === 'OpenPawRunsStuck').map((r) => r.expr);
    expect(stuck).toEqual([
      `max by (workflow_type, state) (openpaw_runs_oldest_idle_seconds{workflow_type!~"research"}) > ${STUCK_RUN_MINUTES.default * 60}`,
      'max by (workflow_type, state) (openpaw_runs_oldest_idle_seconds{workflow_type="research"}) > 9000',
    ]);
    expect(METRIC_NAMES.runsOldestIdle).toBe('openpaw_runs_oldest_idle_seconds');
  });

  it('alerts on the 5xx share of a route with traffic, from the HTTP metrics every service records', () => {
    expect(rules.find((r) => r.alert === 'OpenPawHttp5xxHigh')?.expr).toBe(
      '(sum by (service, route) (rate(openpaw_http_requests_total{status=~"5.."}[10m])) / sum by (service, route) (rate(openpaw_http_requests_total[10m])) > 0.05) and sum by (service, route) (rate(openpaw_http_requests_total[10m])) > 0.05',
    );
  });

  it('alerts on the platform\'s LLM spend over the last hour above the budget in the chart values, from the cost counter observeLlmCalls records', () => {
    expect(METRIC_NAMES.llmCost).toBe('openpaw_llm_cost_usd_total');
    expect(rules.find((r) => r.alert === 'OpenPawLlmCostHigh')?.expr).toBe(`sum(increase(openpaw_llm_cost_usd_total[1h])) > ${DEFAULT_SETTINGS.llmCostAlertUsdPerHour}`);
    const tighter = renderPlatform({ ...DEFAULT_SETTINGS, llmCostAlertUsdPerHour: '2.5' }).platform.find((o) => o.kind === 'PrometheusRule') as typeof ruleObject;
    expect(tighter?.spec.groups.flatMap((g) => g.rules).find((r) => r.alert === 'OpenPawLlmCostHigh')?.expr).toMatch(/\[1h\]\)\) > 2\.5$/);
  });

  it('alerts when tenants keep reaching their external OCR cap, from the fallback counter ingestion records (not on tenants who never allowed it)', () => {
    expect(METRIC_NAMES.ocrLocalFallbacks).toBe('openpaw_ocr_local_fallbacks_total');
    const rule = rules.find((r) => r.alert === 'OpenPawExternalReadingCapReached');
    expect(rule?.expr).toBe('sum by (external) (increase(openpaw_ocr_local_fallbacks_total{reason="cap_reached"}[1h])) > 0');
    expect(rule?.for).toBe('1h');
    expect(rule?.labels).toEqual({ severity: 'info', service: 'ingestion' });
  });

  it('every alert has its runbook entry (a ### heading in docs/ops/runbook.md, linked from runbook_url)', () => {
    for (const alert of new Set(rules.map((r) => r.alert))) {
      expect({ alert, heading: runbook.includes(`\n### ${alert}\n`) }).toEqual({ alert, heading: true });
    }
    for (const rule of rules) expect(rule.annotations['runbook_url']).toBe(`${RUNBOOK_ALERTS_URL}#${rule.alert.toLowerCase()}`);
  });
});
