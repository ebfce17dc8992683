import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The holder of a user-scoped share link (the local store's `/v1/shared/<token>`, e.g. an evidence
 * thumbnail's): a signed URL alone is a bearer credential that works for whoever it is passed to. A
 * link scoped to a user (`user:<id>`) is therefore served only to a request carrying that user's holder
 * cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it) and limited to
 * the share route's path, set on the response that issued the link to the signed-in user. The value is
 * an HMAC of the scope under the share secret, so every link issued to the user works with the one
 * cookie (links fetched in parallel do not race) and nothing is stored. A GCS V4 signed URL is checked
 * by GCS, not here: it cannot be bound to its holder and stays a bearer URL for its 5 minutes.
 */
export const SHARE_HOLDER_COOKIE = 'openpaw_share_holder';

/** Share links bound to a holder: those signed for one user. */
export const isHolderBound = (scope: string | undefined): scope is string => scope?.startsWith('user:') === true;

/** The holder cookie's value for links of this scope. */
export function holderProof(secret: Uint8Array | string, scope: string): string {
  return createHmac('sha256', secret).update(`share-holder\u0000${scope}`).digest('base64url');
}

/** Whether the request's `Cookie` header holds the holder cookie for this proof. */
export function holdsProof(cookieHeader: string | undefined, proof: string): boolean {
  const held = cookieValue(cookieHeader, SHARE_HOLDER_COOKIE);
  if (held === undefined) return false;
  const a = Buffer.from(held);
  const b = Buffer.from(proof);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The `Set-Cookie` value: for `path` (the share route's), as long as the links it goes with live. */
export function holderCookie(proof: string, options: { readonly path: string; readonly maxAgeSeconds: number; readonly secure: boolean }): string {
  return `${SHARE_HOLDER_COOKIE}=${proof}; Path=${options.path}; Max-Age=${options.maxAgeSeconds}; HttpOnly; SameSite=Strict${options.secure ? '; Secure' : ''}`;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
