/**
 * The signed-in session: the bearer token, kept in `sessionStorage` (gone when the tab closes;
 * never in a cookie, so no request carries it unless the console's client adds it).
 */
const TOKEN_KEY = 'openpaw.console.token';

export function storedToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function storeToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/**
 * The `roles` claim of the session's token, read without verifying it: only to decide what the
 * console offers (the admin-only filters); the gateway checks the signature and the role itself.
 */
export function tokenRoles(token: string | undefined): readonly string[] {
  const payload = token?.split('.')[1];
  if (payload === undefined) return [];
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { roles?: unknown };
    return Array.isArray(claims.roles) ? claims.roles.filter((role): role is string => typeof role === 'string') : [];
  } catch {
    return [];
  }
}
