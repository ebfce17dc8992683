/**
 * The signed-in session: the bearer token, kept in `sessionStorage` (gone when the tab closes;
 * never in a cookie, so no request carries it unless the console's client adds it).
 */
const TOKEN_KEY = 'openpaw.console.token';
/** Where the session's token carries its roles: `roles` for dev tokens, the provider's claim (a dotted path) after an OIDC sign-in. */
const ROLES_CLAIM_KEY = 'openpaw.console.rolesClaim';

export function storedToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(ROLES_CLAIM_KEY);
}

export function storeRolesClaim(path: string): void {
  sessionStorage.setItem(ROLES_CLAIM_KEY, path);
}

/**
 * The roles of the session's token (claim `roles`, or the provider's roles claim after an OIDC
 * sign-in), read without verifying it: only to decide what the console offers (the admin-only
 * filters); the gateway checks the signature and the role itself.
 */
export function tokenRoles(token: string | undefined): readonly string[] {
  const payload = token?.split('.')[1];
  if (payload === undefined) return [];
  try {
    let claim: unknown = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')));
    for (const key of (sessionStorage.getItem(ROLES_CLAIM_KEY) ?? 'roles').split('.')) {
      claim = typeof claim === 'object' && claim !== null ? (claim as Record<string, unknown>)[key] : undefined;
    }
    return Array.isArray(claim) ? claim.filter((role): role is string => typeof role === 'string') : [];
  } catch {
    return [];
  }
}
