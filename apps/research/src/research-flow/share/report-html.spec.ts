import { markdownToHtml, renderReportHtml } from './report-html.js';

describe('the shared report page (markdown-it)', () => {
  it('renders headings under the page headings, lists, emphasis, code and source labels', () => {
    const html = markdownToHtml('# Findings\n\nThe **main** result is *large* [openai] and `x = 1` [External 2].\n\n- first [local]\n- second\n\n1. one\n2. two');
    expect(html).toContain('<h3>Findings</h3>');
    expect(html).toContain('<p>The <strong>main</strong> result is <em>large</em> <span class="label">[openai]</span> and <code>x = 1</code> <span class="label">[External 2]</span>.</p>');
    expect(html).toContain('<ul>\n<li>first <span class="label">[local]</span></li>\n<li>second</li>\n</ul>');
    expect(html).toContain('<ol>\n<li>one</li>\n<li>two</li>\n</ol>');
  });

  it('lets no markup, link or URL from a model through', () => {
    const html = markdownToHtml(
      '<script>alert(1)</script>\n\n<img src=x onerror=alert(1)> [click](javascript:alert(1)) ![i](https://evil.example/x.png) <https://evil.example> [ref]\n\n[ref]: https://evil.example/ref\n\n```\n<b>code</b>\n```',
    );
    expect(html).not.toMatch(/<script|<img|<a\b|href=|<[a-z]+[^<>]* src=/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('[click](javascript:alert(1))');
    // A link definition is shown as text, not swallowed.
    expect(html).toContain('[ref]: https://evil.example/ref');
    expect(html).toContain('<pre><code>&lt;b&gt;code&lt;/b&gt;\n</code></pre>');
  });

  it('renders nested lists and tables, which the hand-written renderer flattened into text', () => {
    expect(markdownToHtml('- outer\n  - inner')).toBe('<ul>\n<li>outer\n<ul>\n<li>inner</li>\n</ul>\n</li>\n</ul>');
    expect(markdownToHtml('| a | b |\n|---|---|\n| 1 | 2 |')).toContain('<td>1</td>');
  });

  it('escapes the title, prompt and labels of the page', () => {
    const page = renderReportHtml({
      researchId: 'r1',
      title: '<b>T</b>',
      prompt: 'Why "x" & <y>?',
      synthesis: null,
      reports: [{ provider: 'openai', model: 'gpt', content: 'Hi [openai]', truncated: false }],
      externalReports: [],
      generatedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(page).toContain('<title>&lt;b&gt;T&lt;/b&gt;</title>');
    expect(page).toContain('Why &quot;x&quot; &amp; &lt;y&gt;?');
    expect(page).toContain('<p>Hi <span class="label">[openai]</span></p>');
  });
});
