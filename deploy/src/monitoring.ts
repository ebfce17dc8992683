import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import type { IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import type { Construct } from 'constructs';
import { PART_OF } from './labels.js';
import { typedObject } from './typed-object.js';

/** One ServiceMonitor for every OpenPaw Service: Prometheus scrapes the `metrics` port (never the public one). */
export function serviceMonitor(scope: Construct, release: string): void {
  typedObject<IServiceMonitor>(scope, 'servicemonitor', {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    // `release`: what kube-prometheus-stack's Prometheus selects ServiceMonitors by.
    metadata: { name: 'openpaw', labels: { 'app.kubernetes.io/part-of': PART_OF, release } },
    spec: {
      selector: { matchLabels: { 'app.kubernetes.io/part-of': PART_OF } },
      endpoints: [{ port: 'metrics', path: '/metrics', interval: '30s' }],
    },
  });
}

/** The kinds that go with the ServiceMonitor (the chart's `monitoring.serviceMonitor` flag). */
export const MONITORING_KINDS: ReadonlySet<string> = new Set(['ServiceMonitor', 'PrometheusRule']);

/** Where each alert's runbook entry is (a `### <alert>` heading of docs/ops/runbook.md). */
export const RUNBOOK_ALERTS_URL = 'https://github.com/openpaw/openpaw/blob/main/docs/ops/runbook.md';

/**
 * Publishes per saga transition, platform-wide, above which the message path is doing more than its
 * design: a hit-path run costs 8 publishes for 3 transitions (~2.7, the budget of
 * hit-path-budget.e2e); twice that is a redelivery or retry storm.
 */
export const MESSAGES_PER_TRANSITION_ALERT = 6;

/**
 * Minutes without a step after which a run waiting for machine work is stuck: every machine step has
 * a timeout timer that itself makes a step (the longest, a render, 5 min plus 2 min of backoff), so
 * 15 min means the timer did not fire either. Research legs may run an hour and a phase has a 2 h
 * deadline: 150 min there.
 */
export const STUCK_RUN_MINUTES: { readonly default: number; readonly byWorkflow: Readonly<Record<string, number>> } = { default: 15, byWorkflow: { research: 150 } };

/** Share of a route's responses that are 5xx above which it alerts, over 10 min, for 10 min, once it serves at least 0.05 req/s. */
export const HTTP_5XX_RATIO_ALERT = 0.05;

/** A critical-lane step whose p95 takes half the service's drain budget is cut off by rollouts; 30 s at most (the histogram's resolution above it is 60 s). */
export function stepLatencyAlertSeconds(drainSeconds: number): number {
  return Math.min(drainSeconds / 2, 30);
}

export interface LaneAlertSpec {
  readonly service: string;
  readonly lane: string;
  /** Pending commands per replica before the autoscaler adds one. */
  readonly lagThreshold: number;
  /** Replicas the autoscaler may reach for this lane. */
  readonly maxReplicas: number;
}

export interface StepLatencySpec {
  readonly service: string;
  /** The critical lane's command subjects (an interactive user waits on them). */
  readonly subjects: readonly string[];
  readonly drainSeconds: number;
}

/** Thresholds ops set (chart values), not derived from the code. */
export interface AlertBudgets {
  /** `PlatformSettings.llmCostAlertUsdPerHour`: a decimal number of USD over the last hour. */
  readonly llmCostUsdPerHour: string;
}

interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

const regexOf = (values: readonly string[]): string => values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\\\$&')).join('|');

/**
 * The alert rules (annotations without Prometheus `{{ }}` templates: the Helm chart carries these objects
 * and its lint allows plain `.Values` substitutions only; Alertmanager shows the labels): step latency
 * (critical lanes), dead letters, consumer lag past the autoscaler's reach, the 5xx share per route, stuck runs, messages per step,
 * LLM spend per hour, external OCR caps reached for an hour.
 */
export function alertRules(steps: readonly StepLatencySpec[], lanes: readonly LaneAlertSpec[], budgets: AlertBudgets): AlertRule[] {
  const runbook = (alert: string): string => `${RUNBOOK_ALERTS_URL}#${alert.toLowerCase()}`;
  const rules: AlertRule[] = [];
  for (const step of steps.filter((s) => s.subjects.length > 0)) {
    const seconds = stepLatencyAlertSeconds(step.drainSeconds);
    rules.push({
      alert: 'OpenPawStepLatencyHigh',
      expr: `histogram_quantile(0.95, sum by (service, subject, le) (rate(openpaw_handler_duration_seconds_bucket{service="${step.service}", subject=~"${regexOf(step.subjects)}"}[10m]))) > ${seconds}`,
      for: '15m',
      labels: { severity: 'warning', service: step.service },
      annotations: {
        summary: `${step.service}: p95 of a critical-lane step over ${seconds} s`,
        description: `The step named by the subject label took over ${seconds} s at p95 over 10 min, for 15 min (half of ${step.service}'s ${step.drainSeconds} s drain budget, 30 s at most).`,
        runbook_url: runbook('OpenPawStepLatencyHigh'),
      },
    });
  }
  rules.push({
    alert: 'OpenPawDeadLettersGrowing',
    expr: 'sum by (service, subject) (increase(openpaw_messages_dead_lettered_total[15m])) > 0',
    for: '0m',
    labels: { severity: 'warning' },
    annotations: {
      summary: 'Messages moved to the dead-letter stream',
      description: 'Messages of the subject label were dead-lettered by the service label in the last 15 min.',
      runbook_url: runbook('OpenPawDeadLettersGrowing'),
    },
  });
  for (const lane of lanes) {
    const most = lane.lagThreshold * lane.maxReplicas;
    rules.push({
      alert: 'OpenPawConsumerLagBeyondScaling',
      expr: `max by (service, lane) (openpaw_lane_pending_messages{service="${lane.service}", lane="${lane.lane}", state="pending"}) > ${most}`,
      for: '15m',
      labels: { severity: 'warning', service: lane.service, lane: lane.lane },
      annotations: {
        summary: `${lane.service} lane ${lane.lane}: more pending commands than its replicas at most take`,
        description: `Over ${most} commands pending for 15 min (${lane.lagThreshold} per replica × ${lane.maxReplicas} replicas at most): the autoscaler is at its maximum or not scaling.`,
        runbook_url: runbook('OpenPawConsumerLagBeyondScaling'),
      },
    });
  }
  const requests = (selector: string): string => `sum by (service, route) (rate(openpaw_http_requests_total${selector}[10m]))`;
  rules.push({
    alert: 'OpenPawHttp5xxHigh',
    expr: `(${requests('{status=~"5.."}')} / ${requests('')} > ${HTTP_5XX_RATIO_ALERT}) and ${requests('')} > 0.05`,
    for: '10m',
    labels: { severity: 'warning' },
    annotations: {
      summary: `Over ${HTTP_5XX_RATIO_ALERT * 100} % of a route's HTTP responses are 5xx`,
      description: `The route label of the service label answered over ${HTTP_5XX_RATIO_ALERT * 100} % of its requests with a 5xx over 10 min, for 10 min (routes serving under one request per 20 s are not judged).`,
      runbook_url: runbook('OpenPawHttp5xxHigh'),
    },
  });
  const slow = Object.keys(STUCK_RUN_MINUTES.byWorkflow);
  for (const [selector, minutes] of [
    [`workflow_type!~"${regexOf(slow)}"`, STUCK_RUN_MINUTES.default],
    ...Object.entries(STUCK_RUN_MINUTES.byWorkflow).map(([type, m]) => [`workflow_type="${type}"`, m] as const),
  ] as const) {
    rules.push({
      alert: 'OpenPawRunsStuck',
      expr: `max by (workflow_type, state) (openpaw_runs_oldest_idle_seconds{${selector}}) > ${minutes * 60}`,
      for: '5m',
      labels: { severity: 'warning' },
      annotations: {
        summary: `A run has taken no step for over ${minutes} min`,
        description: `A run of the workflow_type label, in the state label, not waiting for a person, has had no step for over ${minutes} min (its step timer should have made one): openpaw_runs_in_progress says how many runs are there.`,
        runbook_url: runbook('OpenPawRunsStuck'),
      },
    });
  }
  rules.push({
    alert: 'OpenPawMessagesPerStepHigh',
    expr: `sum(rate(openpaw_messages_published_total[30m])) / sum(rate(openpaw_saga_transitions_total[30m])) > ${MESSAGES_PER_TRANSITION_ALERT}`,
    for: '30m',
    labels: { severity: 'info' },
    annotations: {
      summary: 'More JetStream publishes per saga transition than the message path is designed for',
      description: `Over ${MESSAGES_PER_TRANSITION_ALERT} publishes per saga transition over 30 min, for 30 min (a hit-path run costs about 2.7).`,
      runbook_url: runbook('OpenPawMessagesPerStepHigh'),
    },
  });
  rules.push({
    alert: 'OpenPawLlmCostHigh',
    // increase() over the counters of every pod: a restarted pod's reset is not a negative spend.
    expr: `sum(increase(openpaw_llm_cost_usd_total[1h])) > ${budgets.llmCostUsdPerHour}`,
    for: '5m',
    labels: { severity: 'warning' },
    annotations: {
      summary: `LLM spend over ${budgets.llmCostUsdPerHour} USD in the last hour`,
      description: `The platform's LLM calls cost over ${budgets.llmCostUsdPerHour} USD (the price table's cost of answered calls, users' own keys included) over the last hour, for 5 min. Which service, provider and model: sum by (service, provider, model) (increase(openpaw_llm_cost_usd_total[1h])).`,
      runbook_url: runbook('OpenPawLlmCostHigh'),
    },
  });
  rules.push({
    alert: 'OpenPawExternalReadingCapReached',
    // Only caps: a tenant that has not allowed external reading is the policy working as set.
    expr: 'sum by (external) (increase(openpaw_ocr_local_fallbacks_total{reason="cap_reached"}[1h])) > 0',
    for: '1h',
    labels: { severity: 'info', service: 'ingestion' },
    annotations: {
      summary: 'Tenants keep reaching their external OCR cap: their images are read locally',
      description:
        'For an hour, images of tenants allowed external reading (the external label: the configured reader) were read locally because their calls of the period were used (OPENPAW_INGESTION_EXTERNAL_READING). Reading quality for them is the local reader\'s; raise the cap or accept it. All fallbacks: sum by (reason) (increase(openpaw_ocr_local_fallbacks_total[1h])).',
      runbook_url: runbook('OpenPawExternalReadingCapReached'),
    },
  });
  return rules;
}

/** The PrometheusRule beside the ServiceMonitor (the same `release` label, so the same Prometheus picks it up). */
export function prometheusRules(scope: Construct, release: string, steps: readonly StepLatencySpec[], lanes: readonly LaneAlertSpec[], budgets: AlertBudgets): void {
  typedObject<IPrometheusRule>(scope, 'prometheusrule', {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'openpaw', labels: { 'app.kubernetes.io/part-of': PART_OF, release } },
    spec: { groups: [{ name: 'openpaw', rules: alertRules(steps, lanes, budgets) }] },
  });
}
