import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { NextFunction, Request, Response } from 'express';

/** Where the console is served (`/console/`, deep links `/console/#/runs/<id>`). */
export const CONSOLE_PATH = '/console';

/**
 * The console's Content-Security-Policy: its own bundle and the gateway's API only; no inline
 * script, no framing by others. `style-src 'unsafe-inline'` because a solution (self-contained
 * HTML with inline styles) is shown in a sandboxed `srcdoc` frame, which inherits this policy;
 * no script can run there (`sandbox` without `allow-scripts`, and `script-src 'self'`). `blob:`
 * media: a solution's video is fetched with the session's bearer token and played from a blob URL.
 * Evidence thumbnails load from URLs signed for them: the gateway's own `/v1/shared/…` with the
 * local store, a GCS V4 signed URL (`https://storage.googleapis.com/…`) with GCS.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https://storage.googleapis.com",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
};

/** A bundle named by its content hash (`main-AB12CD34.js`) never changes; `index.html` always revalidates. */
const HASHED_FILE = /-[A-Z0-9]{8}\.[a-z]+$/;

/** The default place of the built console: `dist/apps/console/public`, next to the gateway's compiled code. */
export function defaultConsoleDir(): string {
  return join(import.meta.dirname, '../../../console/public');
}

/** The file a URL path names inside `root`; undefined for a path that escapes it or cannot be decoded. */
function fileOf(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  const file = normalize(join(root, decoded));
  return file.startsWith(root + sep) ? file : undefined;
}

/**
 * Serves the built console as static files: `GET /console/<file>`, `index.html` for the folder
 * itself. Public (the console holds no secret; its API calls carry the user's token), read-only,
 * and confined to `dir`. 404 with a hint when the console was not built.
 */
export function consoleStatic(dir: string): (request: Request, response: Response, next: NextFunction) => void {
  const root = normalize(dir);
  return (request, response, next) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next();
    // `/console` → `/console/`, so the page's relative URLs resolve under it.
    if (request.path === '/' && !(request.originalUrl.split('?')[0] ?? '').endsWith('/')) {
      response.redirect(301, `${request.baseUrl}/`);
      return;
    }
    const file = fileOf(root, request.path === '/' || request.path === '' ? '/index.html' : request.path);
    if (file === undefined || !existsSync(file) || !statSync(file).isFile()) {
      response.status(404).type('application/json').send({
        error: 'not_found',
        message: existsSync(root) ? 'no such console file' : 'the console is not built (npm run build)',
      });
      return;
    }
    response.setHeader('Content-Security-Policy', CONSOLE_CSP);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Referrer-Policy', 'no-referrer');
    response.setHeader('Cache-Control', HASHED_FILE.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache');
    response.setHeader('Content-Type', CONTENT_TYPES[extname(file)] ?? 'application/octet-stream');
    response.send(readFileSync(file));
  };
}
