import { waitFor } from '@openpaw/testing';
import { screenshot, seriousAccessibilityViolations } from '../browser.js';
import { type WorkflowWorld } from '../workflow-platform.js';

/** The local world's demo pairs, as the visual-search service announces them at start. */
function demoPairsFrom(logs: string): { threeHop: { from: string; to: string } } | undefined {
  const line = logs.split('\n').find((candidate) => candidate.includes('localWorldDemo'));
  return line === undefined ? undefined : (JSON.parse(line) as { localWorldDemo: { threeHop: { from: string; to: string } } }).localWorldDemo;
}

/** Visual degrees in the console: the chain grows live, an evidence card per link, in the local world it names. Registered by `console-workflows.e2e.spec.ts`, in its one world (`startWorkflowWorld`). */
export function visualDegreesPage(world: WorkflowWorld): void {
  it('visual degrees: the chain grows live with an evidence card per link, both confidences and its photo shown, in the world it names', async () => {
    const { platform, page } = world;
    const pairs = await waitFor(() => demoPairsFrom(platform.logs('visual-search')), 'the local world demo pairs in the visual-search log');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Visual degrees' }).click();
    await page.getByLabel("From (a person's name)", { exact: true }).fill(pairs.threeHop.from);
    await page.getByLabel("To (a person's name)", { exact: true }).fill(pairs.threeHop.to);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Find the chain' }).click();
    await page.waitForURL(/#\/visual-degrees\/[0-9a-f-]{36}$/);
    await page.locator('[data-ending=final]').waitFor({ timeout: 90_000 });
    const cards = page.locator('.evidence-card');
    expect(await cards.count()).toBeGreaterThanOrEqual(3);
    expect(await cards.first().textContent()).toMatch(/recognised at\s*\d+(\.\d)? %/);
    const chain = await page.getByRole('list', { name: 'Chain so far' }).getByRole('listitem').allTextContents();
    expect(chain[0]).toBe(pairs.threeHop.from);
    expect(chain.at(-1)).toBe(pairs.threeHop.to);
    expect(chain).toHaveLength((await cards.count()) + 1);
    // The page says the answer comes from the invented local world, not the real web.
    expect(await page.locator('[data-world]').textContent()).toContain('local demo world of 24 invented people');
    // Every card shows its evidence photo (the stored thumbnail, from the URL signed for it and this user), credited to its page.
    const pictures = page.locator('.evidence-card img[data-evidence-thumbnail]');
    await waitFor(async () => ((await pictures.count()) === (await cards.count()) ? true : undefined), 'a picture on every evidence card', 15_000);
    for (const picture of await pictures.all()) {
      expect(await picture.getAttribute('src')).toMatch(/\/v1\/shared\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      await waitFor(async () => ((await picture.evaluate((img: { readonly complete: boolean; readonly naturalWidth: number }) => img.complete && img.naturalWidth > 0)) ? true : undefined), 'the evidence picture decoded', 15_000);
    }
    expect(await page.locator('.evidence-card figcaption').first().textContent()).toMatch(/^(From \S+|Source page unknown)$/);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'w6-visual-degrees');
  });
}
