import { existsSync } from 'node:fs';
import { connect } from 'node:net';

/** True when a Docker engine answers on DOCKER_HOST or the default socket (not just a client binary). */
export async function dockerEngineReachable(): Promise<boolean> {
  if (process.env['OPENPAW_TEST_NO_DOCKER'] === '1') return false;
  const host = process.env['DOCKER_HOST'];
  const socketPath = host?.startsWith('unix://') ? host.slice('unix://'.length) : host === undefined ? '/var/run/docker.sock' : undefined;
  if (socketPath === undefined || !existsSync(socketPath)) return false;
  return new Promise((resolve) => {
    const socket = connect({ path: socketPath });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, 1000);
    socket.once('connect', () => {
      socket.write('GET /_ping HTTP/1.0\r\n\r\n');
    });
    socket.once('data', (data) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(data.toString().includes('200 OK'));
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}
