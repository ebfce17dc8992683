import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { GatewayClient } from './client.js';

export const GatewayClientContext = createContext<GatewayClient | undefined>(undefined);

/** The signed-in session's client of the gateway. */
export function useGatewayClient(): GatewayClient {
  const client = useContext(GatewayClientContext);
  if (client === undefined) throw new Error('useGatewayClient outside a signed-in session');
  return client;
}
