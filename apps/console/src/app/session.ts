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
