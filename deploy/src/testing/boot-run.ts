import type { LocalProcess } from './boot-plan.js';
import { exitOf, type SandboxedProcess, spawnSandboxed } from './read-only-sandbox.js';

/**
 * The processes of a boot test: one-shot workloads run to completion in order (the migrations Job, a
 * compose `provision` step, a CronJob), then the long-running ones all at once, each until its
 * readiness URL answers 2xx.
 */
export class BootedProcesses {
  readonly running = new Map<string, SandboxedProcess>();
  /** `<workload>/<container>` of each one-shot that exited 0, then each long-running workload that became ready, in that order. */
  readonly started: string[] = [];

  constructor(private readonly plan: readonly LocalProcess[]) {}

  /** Runs a workload's containers in order, as its pod does; each must exit 0. */
  async runToCompletion(workload: string): Promise<void> {
    for (const step of this.plan.filter((p) => p.container.workload === workload)) {
      const proc = spawnSandboxed(step.sandbox);
      const code = await exitOf(proc);
      if (code !== 0) throw new Error(`${workload}/${step.container.container} exited ${code}:\n${proc.log().slice(-8000)}`);
      this.started.push(`${workload}/${step.container.container}`);
    }
  }

  /**
   * Starts every given workload at once and waits until each is ready, within the startup budget its
   * platform gives it (`startupBudgetMs`, else `readyWithinMs`); a process that exits first fails it with its log.
   */
  async startAll(workloads: readonly string[], readyWithinMs: number): Promise<void> {
    const steps = this.plan.filter((p) => workloads.includes(p.container.workload));
    for (const step of steps) this.running.set(step.container.workload, spawnSandboxed(step.sandbox));
    await Promise.all(steps.map(async (step) => this.untilReady(step, this.running.get(step.container.workload) as SandboxedProcess, step.container.startupBudgetMs ?? readyWithinMs)));
    for (const step of steps) this.started.push(step.container.workload);
  }

  log(workload: string): string {
    return this.running.get(workload)?.log() ?? '';
  }

  /** Stops one long-running workload (its Deployment scaled to 0). */
  async stopWorkload(workload: string): Promise<void> {
    await this.running.get(workload)?.stop('SIGTERM', 15_000);
    this.running.delete(workload);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.running.values()].map((p) => p.stop('SIGTERM', 15_000)));
  }

  private async untilReady(step: LocalProcess, proc: SandboxedProcess, withinMs: number): Promise<void> {
    const { workload } = step.container;
    if (step.readyUrl === undefined) throw new Error(`${workload} declares no readiness probe`);
    const deadline = Date.now() + withinMs;
    for (;;) {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`${workload} exited while starting:\n${proc.log().slice(-8000)}`);
      if (await fetch(step.readyUrl).then((r) => r.ok, () => false)) return;
      if (Date.now() > deadline) throw new Error(`${workload} not ready at ${step.readyUrl} after ${withinMs} ms:\n${proc.log().slice(-8000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
