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

/**
 * The ports `fetch` refuses to connect to (the WHATWG Fetch standard's "bad port" list; Node's undici
 * fails such a request with "bad port" before it connects). 10080 lies inside the first slice, the one a
 * process outside jest draws from: a bench that handed it to a service waited 60 s for a /readyz that
 * its own `fetch` would never ask ("visual-search not ready after 60 s; its /readyz: no answer (bad port)").
 */
export const FETCH_BAD_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
  512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668,
  6669, 6679, 6697, 10080,
]);

/**
 * Asks for an unused TCP port on 127.0.0.1 that no outgoing connection will take meanwhile, and that
 * `fetch` will reach. `draw` picks a candidate in [low, high) (a spec passes its own).
 */
export async function findFreePort(draw: (low: number, high: number) => number = (low, high) => randomInt(low, high)): Promise<number> {
  const [low, high] = portSlice();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = draw(low, high);
    if (handedOut.has(port) || FETCH_BAD_PORTS.has(port)) continue;
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
