import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports for the servers a test starts come from below the kernel's ephemeral range, never from
 * `listen(0)`. A port the kernel hands out is ephemeral: once the test closes its probe, or kills a
 * service to restart it "on the same port", the kernel may give that very port to the next outgoing
 * connection (a pg client polling a step log, a NATS reconnect), and the restart then fails with
 * EADDRINUSE or, worse, the test talks to another worker's server and reads its 404s. Ports outside
 * the ephemeral range are only ever taken by someone who asked for them by number.
 */
const LOWEST_TEST_PORT = 10_000;

/** Each jest worker draws from its own slice, so two workers never race for one port. */
const SLICES = 8;

/** Ports this process has handed out: never handed out twice, even after their server stopped. */
const handedOut = new Set<number>();

/** Asks for an unused TCP port on 127.0.0.1 that no outgoing connection will take meanwhile. */
export async function findFreePort(): Promise<number> {
  const [low, high] = portSlice();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = randomInt(low, high);
    if (handedOut.has(port)) continue;
    if (await canListenOn(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${low}..${high - 1} after 200 attempts`);
}

function portSlice(): [number, number] {
  const ephemeralLow = ephemeralRangeStart();
  const width = Math.floor((ephemeralLow - LOWEST_TEST_PORT) / SLICES);
  const worker = Number(process.env['JEST_WORKER_ID'] ?? '0');
  const slice = (Number.isInteger(worker) ? worker : 0) % SLICES;
  const low = LOWEST_TEST_PORT + slice * width;
  return [low, low + width];
}

/** Linux says where its ephemeral ports start; elsewhere the IANA dynamic range's start is a safe bound. */
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && Number.isInteger(low) && low > LOWEST_TEST_PORT + SLICES * 100) return low;
  } catch {
    // Not Linux: fall through to the IANA bound.
  }
  return 32_768;
}

async function canListenOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
