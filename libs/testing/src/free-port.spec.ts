import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { findFreePort } from './free-port.js';

describe('findFreePort', () => {
  const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

  it('hands out listenable ports below the kernel ephemeral range, never the same one twice', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) ports.push(await findFreePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralLow);
    }
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ports[0], '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
