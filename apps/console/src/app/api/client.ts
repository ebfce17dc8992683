import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './schema.js';

/** The gateway's API as the console calls it: typed by the types generated from its OpenAPI document. */
export type GatewayClient = Client<paths>;

/**
 * A client of the gateway that serves the console (same origin), sending the bearer token of the
 * session with every call. `onUnauthorized` hears of a 401 (an expired or wrong token).
 */
export function createGatewayClient(options: {
  readonly baseUrl: string;
  readonly token: () => string | undefined;
  readonly onUnauthorized?: () => void;
}): GatewayClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl });
  const auth: Middleware = {
    onRequest({ request }) {
      const token = options.token();
      if (token !== undefined) request.headers.set('Authorization', `Bearer ${token}`);
      return request;
    },
    onResponse({ response }) {
      if (response.status === 401) options.onUnauthorized?.();
      return response;
    },
  };
  client.use(auth);
  return client;
}
