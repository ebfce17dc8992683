import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`scripts/setup.sh` installs it); `OPENPAW_CHROMIUM` names another binary. Never a downloaded browser. */
export function chromiumPath(): string {
  const path = process.env['OPENPAW_CHROMIUM'] ?? '/usr/bin/chromium';
  if (!existsSync(path)) throw new Error(`no Chromium at ${path}: run ./scripts/setup.sh (apt-get install chromium) or set OPENPAW_CHROMIUM`);
  return path;
}

export async function launchChromium(): Promise<Browser> {
  // --no-sandbox: CI and dev containers run as root, where Chromium's own sandbox cannot start.
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

/**
 * Runs axe-core on the page (WCAG 2.1 A/AA rules and best practices) and returns its serious and
 * critical violations. Injected through the DevTools protocol, which the console's CSP (no inline
 * script) does not apply to. The solution's sandboxed frame runs no script, so axe skips frames.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    interface AxeResults {
      violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
    }
    // Runs in the page; this file is compiled without the DOM library, hence the shape named here.
    const page = globalThis as unknown as { document: object; axe: { run(context: object, options: object): Promise<AxeResults> } };
    const results = await page.axe.run(page.document, { iframes: false, resultTypes: ['violations'] });
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, targets: violation.nodes.map((node) => String(node.target)) }));
  });
}

/** Screenshots of each page, for people to look at (git-ignored: `apps/console/screenshots/`). */
export const SCREENSHOT_DIR = join(import.meta.dirname, '../../screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}
