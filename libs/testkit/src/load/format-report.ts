import { type LoadReport, percentile } from './load-harness.js';

/** The report as the harness prints it (and as closing notes quote it). */
export function formatLoadReport(report: LoadReport): string {
  const o = report.options;
  const lines = [
    `load: ${report.submitted} distinct new problems, ${o.ratePerSecond}/s, ${o.users} users, faults ${o.faults ? 'ON' : 'off'}`,
    `  SUCCEEDED ${report.succeeded}/${report.submitted - report.rejected429} accepted (${(((report.succeeded / Math.max(1, report.submitted - report.rejected429)) * 100)).toFixed(1)} %), ` +
      `429 ${report.rejected429} (without Retry-After: ${report.rejectedWithoutRetryAfter}), unfinished ${report.unfinished}`,
    `  FAILED by reason: ${JSON.stringify(report.failedByReason)}`,
    `  time to result (succeeded): p50 ${report.msToResult.p50.toFixed(0)} ms, p99 ${report.msToResult.p99.toFixed(0)} ms, max ${report.msToResult.max.toFixed(0)} ms`,
    `  per state (ms, p50/p99): ${Object.entries(report.facts.stateTimesMs)
      .map(([state, times]) => `${state} ${percentile(times, 50).toFixed(0)}/${percentile(times, 99).toFixed(0)}`)
      .join(', ')}`,
    `  commands stored per step: ${Object.entries(report.facts.commands)
      .map(([subject, c]) => `${subject.replace('openpaw.cmd.', '')} ${(c.stored / Math.max(1, c.distinct)).toFixed(3)} (${c.stored}/${c.distinct})`)
      .join(', ')}`,
    `  flow-control log rows: ${JSON.stringify(report.facts.flowControlLogs)}`,
    `  duplicate asset versions ${report.facts.duplicateAssetVersions}, orphaned solution versions ${report.facts.orphanedAssetVersions}, videos rendered twice ${report.facts.videosRenderedTwice}`,
    `  video runs ${JSON.stringify(report.facts.videoRuns)}, backlog drained ${report.videoDrainMs === null ? 'not measured / not drained' : `${(report.videoDrainMs / 1000).toFixed(1)} s after the last result`}`,
  ];
  if (report.facts.slowestRunTimeline.length > 0) lines.push('  slowest run:', ...report.facts.slowestRunTimeline.map((l) => `    ${l}`));
  if (report.faultsInjected.length > 0) lines.push(`  faults: ${report.faultsInjected.length} (${report.faultsInjected.join('; ')})`);
  for (const [service, tail] of Object.entries(report.serviceLogTails)) lines.push(`  --- last lines of ${service}:`, ...tail.split('\n').map((l) => `    ${l}`));
  return lines.join('\n');
}
