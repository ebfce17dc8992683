import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import katex from 'katex';
import { type Browser, chromium } from 'playwright-core';
import sharp from 'sharp';
import { pick, randomInt, seededRandom } from './random.js';
import { addNoise } from './render.js';

/**
 * The pinned reading set (issue 25): printed problems rendered by Chromium, their maths typeset by
 * KaTeX (real superscripts, stacked fractions, root signs) or as HTML with <sup>, at 20–48 px in the
 * fonts `scripts/setup.sh` installs. Seeded: one seed gives the same problems, layouts and copies.
 */
export interface KatexProblem {
  readonly id: number;
  /** The problem as a person would type it: the truth a reading is scored against. */
  readonly truth: string;
  /** Which kind of maths it holds (for per-family figures). */
  readonly family: Family;
  readonly font: (typeof PROSE_FONTS)[number];
  readonly typeset: 'katex' | 'html';
  readonly sizePx: number;
}

export const PROSE_FONTS = ['DejaVu Sans', 'DejaVu Serif', 'DejaVu Sans Mono', 'Liberation Sans', 'Liberation Serif', 'Liberation Mono'] as const;

export const FAMILIES = ['linear', 'arithmetic', 'division', 'powers', 'quadratic', 'inequality', 'numeric-powers', 'fraction', 'root'] as const;
export type Family = (typeof FAMILIES)[number];

export interface Parts {
  readonly prompt: string;
  /** KaTeX source of the maths. */
  readonly tex: string;
  /** The same maths as HTML (null: only KaTeX can typeset it). */
  readonly html: string | null;
  /** The same maths typed. */
  readonly typed: string;
}

const signed = (n: number): { tex: string; typed: string; html: string } =>
  n < 0 ? { tex: `- ${-n}`, typed: `- ${-n}`, html: `&minus; ${-n}` } : { tex: `+ ${n}`, typed: `+ ${n}`, html: `+ ${n}` };

function partsOf(random: () => number, family: Family): Parts {
  const v = pick(random, ['x', 'y', 'n', 'a', 't']);
  const a = randomInt(random, 2, 12);
  const b = randomInt(random, 1, 40) * (random() < 0.5 ? -1 : 1);
  const c = randomInt(random, 1, 99);
  const s = signed(b);
  switch (family) {
    case 'linear':
      return { prompt: `Solve for ${v}:`, tex: `${a}${v} ${s.tex} = ${c}`, html: `${a}<i>${v}</i> ${s.html} = ${c}`, typed: `${a}${v} ${s.typed} = ${c}` };
    case 'arithmetic': {
      const d = randomInt(random, 2, 19);
      return { prompt: 'Calculate:', tex: `${c} \\times ${d} ${s.tex}`, html: `${c} &times; ${d} ${s.html}`, typed: `${c} × ${d} ${s.typed}` };
    }
    case 'division': {
      const d = randomInt(random, 2, 12);
      return { prompt: 'Work out', tex: `${d * a} \\div ${d} ${s.tex}`, html: `${d * a} &divide; ${d} ${s.html}`, typed: `${d * a} ÷ ${d} ${s.typed}` };
    }
    case 'powers': {
      const n = randomInt(random, 2, 5);
      const e = randomInt(random, 2, 9);
      return { prompt: 'Simplify:', tex: `${a}${v}^{${n}} + ${e}${v}^{${n}}`, html: `${a}<i>${v}</i><sup>${n}</sup> + ${e}<i>${v}</i><sup>${n}</sup>`, typed: `${a}${v}^${n} + ${e}${v}^${n}` };
    }
    case 'quadratic': {
      const r1 = randomInt(random, 1, 9);
      const r2 = randomInt(random, 1, 9);
      const sum = signed(-(r1 + r2));
      return { prompt: 'Solve:', tex: `${v}^{2} ${sum.tex}${v} + ${r1 * r2} = 0`, html: `<i>${v}</i><sup>2</sup> ${sum.html}<i>${v}</i> + ${r1 * r2} = 0`, typed: `${v}^2 ${sum.typed}${v} + ${r1 * r2} = 0` };
    }
    case 'inequality': {
      const [tex, html, typed] = pick(random, [['<', '&lt;', '<'], ['>', '&gt;', '>'], ['\\le', '&le;', '≤'], ['\\ge', '&ge;', '≥']] as const);
      return { prompt: `Solve for ${v}:`, tex: `${a}${v} ${s.tex} ${tex} ${c}`, html: `${a}<i>${v}</i> ${s.html} ${html} ${c}`, typed: `${a}${v} ${s.typed} ${typed} ${c}` };
    }
    case 'numeric-powers': {
      const n = randomInt(random, 2, 4);
      const m = randomInt(random, 2, 3);
      const base2 = randomInt(random, 2, 9);
      return { prompt: 'Evaluate', tex: `${a}^{${n}} + ${base2}^{${m}}`, html: `${a}<sup>${n}</sup> + ${base2}<sup>${m}</sup>`, typed: `${a}^${n} + ${base2}^${m}` };
    }
    case 'fraction': {
      const d1 = randomInt(random, 2, 9);
      const d2 = randomInt(random, 2, 9);
      const n1 = randomInt(random, 1, d1 - 1);
      const n2 = randomInt(random, 1, 9);
      return { prompt: 'Add the fractions:', tex: `\\frac{${n1}}{${d1}} + \\frac{${n2}}{${d2}}`, html: null, typed: `${n1}/${d1} + ${n2}/${d2}` };
    }
    case 'root': {
      const r = randomInt(random, 2, 15);
      return { prompt: 'Evaluate', tex: `\\sqrt{${r * r}} ${s.tex}`, html: null, typed: `sqrt(${r * r}) ${s.typed}` };
    }
  }
}

export interface RenderedKatexProblem extends KatexProblem {
  readonly png: Buffer;
}

/** Generates `count` problems from `seed`, each family in turn, fonts, typesetting and sizes drawn from the seed. */
export function generateKatexProblems(seed: number, count: number): (KatexProblem & { readonly html: string })[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, id) => {
    const family = FAMILIES[id % FAMILIES.length]!;
    const parts = partsOf(random, family);
    const font = pick(random, PROSE_FONTS);
    const typeset = parts.html === null || random() < 0.6 ? 'katex' : 'html';
    const sizePx = randomInt(random, 20, 48);
    const padding = randomInt(random, 12, 40);
    return katexProblem({ id, family, font, sizePx, padding, ...parts, html: typeset === 'katex' ? null : parts.html });
  });
}

/** One problem: its maths typeset by KaTeX from `tex`, or as the given HTML; `typed` is its truth. */
export function katexProblem(problem: Parts & { readonly id: number; readonly family: Family; readonly font: KatexProblem['font']; readonly sizePx: number; readonly padding: number }): KatexProblem & { readonly html: string } {
  const { id, family, font, sizePx, padding, prompt, tex, html, typed } = problem;
  const typeset = html === null ? 'katex' : 'html';
  const maths = html ?? katex.renderToString(tex, { output: 'html', throwOnError: true });
  const page = `<div id="problem" style="display:inline-block;padding:${padding}px ${Math.round(padding * 1.5)}px;background:#fff;color:#111;font-family:'${font}';font-size:${sizePx}px;white-space:nowrap">${prompt} ${maths}</div>`;
  return { id, truth: `${prompt} ${typed}`, family, font, typeset, sizePx, html: page };
}

/** Renders the problems in one Chromium page (Debian's Chromium through playwright-core; `OPENPAW_CHROMIUM` names another). */
export async function renderKatexProblems(problems: readonly (KatexProblem & { readonly html: string })[]): Promise<RenderedKatexProblem[]> {
  const executablePath = process.env['OPENPAW_CHROMIUM'] ?? '/usr/bin/chromium';
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}: run ./scripts/setup.sh or set OPENPAW_CHROMIUM`);
  const css = pathToFileURL(`${dirname(createRequire(import.meta.url).resolve('katex'))}/katex.min.css`).href;
  const browser: Browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ deviceScaleFactor: 1 });
    // A file:// page, so KaTeX's stylesheet and fonts (file:// too) load; an about:blank page may not read them.
    const shell = join(mkdtempSync(join(tmpdir(), 'katex-bench-')), 'page.html');
    writeFileSync(shell, `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="${css}"></head><body style="margin:0;background:#fff"></body></html>`);
    await page.goto(pathToFileURL(shell).href, { waitUntil: 'load' });
    const rendered: RenderedKatexProblem[] = [];
    for (const { html, ...problem } of problems) {
      await page.evaluate(`document.body.innerHTML = ${JSON.stringify(html)}`);
      await page.evaluate('document.fonts.ready');
      const styled = await page.evaluate(`getComputedStyle(document.querySelector('.katex') ?? document.body).fontFamily`);
      if (problem.typeset === 'katex' && !String(styled).includes('KaTeX')) throw new Error('KaTeX stylesheet not applied: its maths would print flat');
      const png = await page.locator('#problem').screenshot({ type: 'png' });
      rendered.push({ ...problem, png });
    }
    return rendered;
  } finally {
    await browser.close();
  }
}

export const DISTORTIONS = ['jpeg-q30', 'size-40', 'crop-7', 'rotate-3', 'dark', 'noise', 'upscaled', 'grey', 'rotate-90', 'rotate-180'] as const;
export type Distortion = (typeof DISTORTIONS)[number];

/** The eight photo-like copies, plus the page turned a quarter and upside down. */
export async function distort(png: Buffer, distortion: Distortion, seed: number): Promise<Buffer> {
  const meta = await sharp(png).metadata();
  const width = meta.width ?? 1;
  const height = meta.height ?? 1;
  const white = { r: 255, g: 255, b: 255 };
  switch (distortion) {
    case 'jpeg-q30':
      return sharp(png).jpeg({ quality: 30 }).toBuffer();
    case 'size-40':
      return sharp(png).resize({ width: Math.max(1, Math.round(width * 0.4)) }).png().toBuffer();
    case 'crop-7': {
      // 7 % of each dimension off, from the seed's sides; the padding is at least as wide.
      const dx = Math.round(width * 0.07);
      const dy = Math.round(height * 0.07);
      const left = seed % 2 === 0 ? dx : 0;
      const top = seed % 3 === 0 ? dy : 0;
      return sharp(png).extract({ left, top, width: width - dx, height: height - dy }).png().toBuffer();
    }
    case 'rotate-3':
      return sharp(png).rotate(seed % 2 === 0 ? 3 : -3, { background: white }).png().toBuffer();
    case 'dark':
      return sharp(png).linear(0.55, 0).png().toBuffer();
    case 'noise':
      return addNoise(png, 18, seed);
    case 'upscaled':
      return sharp(png).resize({ width: Math.round(width * 2.5), kernel: 'cubic' }).png().toBuffer();
    case 'grey':
      return sharp(png).greyscale().png().toBuffer();
    case 'rotate-90':
      return sharp(png).rotate(90).png().toBuffer();
    case 'rotate-180':
      return sharp(png).rotate(180).png().toBuffer();
  }
}
