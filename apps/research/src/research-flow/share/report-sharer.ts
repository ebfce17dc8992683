import { createHash } from 'node:crypto';
import type { ShareInfo } from '@openpaw/contracts';
import type { BlobStore } from '@openpaw/providers';
import { renderReportHtml, type ShareableReport } from './report-html.js';

export interface ShareOutcome {
  readonly share: ShareInfo | null;
  readonly shareError: string | null;
}

/**
 * Spec 05's post-synthesis actions 1-3: the report as a self-contained HTML page in blob storage
 * (GCS, or the local store) and a signed, expiring URL. A failure to share never fails the research:
 * it is reported beside the result.
 */
export class ReportSharer {
  constructor(
    private readonly blobs: BlobStore | null,
    private readonly ttlSeconds: number,
  ) {}

  async share(report: ShareableReport): Promise<ShareOutcome> {
    if (this.blobs === null || this.ttlSeconds === 0) return { share: null, shareError: null };
    const html = renderReportHtml(report);
    const contentSha256 = createHash('sha256').update(html).digest('hex');
    const blobKey = `research/${report.researchId}/report-${contentSha256.slice(0, 16)}.html`;
    try {
      await this.blobs.put(blobKey, html, { contentType: 'text/html; charset=utf-8', metadata: { researchId: report.researchId } });
      const signed = await this.blobs.shareUrl(blobKey, { expiresInSeconds: this.ttlSeconds });
      return { share: { url: signed.url, expiresAt: new Date(signed.expiresAt).toISOString(), blobKey, contentSha256 }, shareError: null };
    } catch (error) {
      return { share: null, shareError: `sharing failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500) };
    }
  }
}
