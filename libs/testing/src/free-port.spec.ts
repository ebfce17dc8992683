import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { FETCH_BAD_PORTS, findFreePort } from './free-port.js';

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

  it('never hands out a port fetch refuses (10080 lies in the first slice)', async () => {
    const drawn: number[] = [];
    const port = await findFreePort((low) => {
      const next = drawn.length === 0 ? 10_080 : low + 1 + drawn.length;
      drawn.push(next);
      return next;
    });
    expect(drawn[0]).toBe(10_080);
    expect(port).not.toBe(10_080);
  });

  it('lists ports fetch really refuses, and fetch reaches the ports beside them', async () => {
    const causeOf = (port: number): Promise<string> =>
      fetch(`http://127.0.0.1:${port}/`).then(
        () => 'answered',
        // Read by shape: fetch's errors come from Node's realm, not the spec's (instanceof fails across them).
        (error: { readonly cause?: { readonly message?: string } }) => error.cause?.message ?? 'no cause',
      );
    for (const port of [10_080, 6_000, 6_666]) {
      expect(FETCH_BAD_PORTS.has(port)).toBe(true);
      expect(await causeOf(port)).toBe('bad port');
    }
    expect(await causeOf(10_081)).not.toBe('bad port');
  });
});
