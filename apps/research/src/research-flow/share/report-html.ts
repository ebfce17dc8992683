import { createRequire } from 'node:module';
import type MarkdownIt from 'markdown-it';
import type { ExternalReport, LegReport as ReportOfLeg } from '@openpaw/contracts';

export interface ShareableReport {
  readonly researchId: string;
  readonly title: string;
  readonly prompt: string;
  readonly synthesis: { readonly content: string; readonly model: string; readonly truncated?: boolean } | null;
  readonly reports: readonly ReportOfLeg[];
  readonly externalReports: readonly ExternalReport[];
  readonly generatedAt: string;
}

const CUT_NOTE = '<p class="meta cut">This text was cut short (the model\'s output limit, or the size limit): it is not whole.</p>';

const STYLE = `body{font:16px/1.55 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.7rem}h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2.2rem}h3{margin-top:1.6rem}
.meta{color:#666;font-size:.9rem}.prompt{background:#f5f5f7;border-left:4px solid #888;padding:.6rem 1rem;white-space:pre-wrap}
section.report{border:1px solid #e3e3e3;border-radius:6px;padding:.2rem 1rem 1rem;margin:1rem 0}.label{font-family:ui-monospace,monospace;background:#eef;padding:0 .3rem;border-radius:3px}
code{background:#f2f2f2;padding:0 .2rem;border-radius:3px}`;

/** Everything that reaches the page is text: `<`, `>`, `&`, quotes become entities (no markup from a model or a user survives). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Source labels a report cites ("[openai]", "[External 2]"), marked on the page. */
const SOURCE_LABEL = /\[((?:openai|anthropic|gemini|local|External \d+|E\d+|Q))\]/g;

type MarkdownRenderer = InstanceType<typeof MarkdownIt>;
let markdown: MarkdownRenderer | undefined;

/**
 * Markdown by markdown-it (CommonMark): raw HTML is shown as text, not passed through, and links,
 * images, autolinks and link definitions are off, so no URL from a model reaches an `href` or `src`.
 * Loaded on first use (~3.5 MB RSS): only a shared report needs it.
 */
function markdownRenderer(): MarkdownRenderer {
  if (markdown !== undefined) return markdown;
  const MarkdownItClass = createRequire(import.meta.url)('markdown-it') as typeof MarkdownIt;
  const renderer = new MarkdownItClass('default', { html: false, linkify: false, typographer: false }).disable(['link', 'image', 'autolink', 'reference']);
  // A report's own headings sit under the page's h1 and h2.
  renderer.core.ruler.push('report_heading_levels', (state) => {
    for (const token of state.tokens) {
      if (token.type === 'heading_open' || token.type === 'heading_close') token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + 2)}`;
    }
    return true;
  });
  renderer.renderer.rules.text = (tokens, index) => escapeHtml(tokens[index]?.content ?? '').replace(SOURCE_LABEL, '<span class="label">[$1]</span>');
  markdown = renderer;
  return renderer;
}

/** A report's Markdown as HTML: headings, lists, paragraphs, emphasis, code, tables; every text escaped. */
export function markdownToHtml(text: string): string {
  return markdownRenderer().render(text).trimEnd();
}

/**
 * The completed report as one self-contained, sanitised HTML page: inline CSS only, no script, no
 * external resource, no link, every piece of text escaped. Served with the gateway's blob CSP.
 */
export function renderReportHtml(report: ShareableReport): string {
  const sections = report.reports
    .map((r) => `<section class="report"><h3><span class="label">[${escapeHtml(r.provider)}]</span> ${escapeHtml(r.model)}</h3>\n${markdownToHtml(r.content)}${r.truncated === true ? `\n${CUT_NOTE}` : ''}</section>`)
    .join('\n');
  const external =
    report.externalReports.length === 0
      ? ''
      : `<h2>External reports</h2>\n<ol>${report.externalReports.map((r, i) => `<li><span class="label">[External ${i + 1}]</span> ${escapeHtml(r.title ?? `External report ${i + 1}`)} (${r.content.length} characters)</li>`).join('')}</ol>`;
  const synthesis =
    report.synthesis === null
      ? '<h2>Synthesis</h2>\n<p class="meta">Synthesis not available: one report, no external report.</p>'
      : `<h2>Synthesis</h2>\n<p class="meta">Written by ${escapeHtml(report.synthesis.model)}; each sentence cites its sources.</p>\n${markdownToHtml(report.synthesis.content)}${report.synthesis.truncated === true ? `\n${CUT_NOTE}` : ''}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(report.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(report.title)}</h1>
<p class="meta">OpenPaw research ${escapeHtml(report.researchId)} · generated ${escapeHtml(report.generatedAt)}</p>
<div class="prompt">${escapeHtml(report.prompt)}</div>
${synthesis}
<h2>Individual reports</h2>
${sections}
${external}
</body>
</html>
`;
}
