import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLI_VERSION } from './version.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../../..');

/** What a user gets: `npm pack` of apps/cli, installed into an empty prefix, run as `openpaw`. */
describe('the openpaw package', () => {
  let scratch: string;
  let server: Server;
  let url: string;
  const runId = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f1';

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'openpaw-cli-package-'));
    server = createServer((request, response) => {
      const known = request.url === `/runs/${runId}` && request.headers.authorization === 'Bearer packaged.token';
      response.writeHead(known ? 200 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify(known ? { runId, workflowType: 'retrieve_or_generate', state: 'SOLVING', terminal: false, attemptNo: 1, version: 3, view: {} } : { error: 'not_found' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await rm(scratch, { recursive: true, force: true });
  });

  it('packs, installs into a temporary prefix with its dependencies, and runs as `openpaw`', async () => {
    const { stdout: tarball } = await run(process.execPath, [join(root, 'tools/pack-cli.mjs'), join(scratch, 'packed')]);
    const prefix = join(scratch, 'prefix');
    // Its two dependencies come from the npm cache the workspace install filled (or the registry).
    await run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball.trim()], { cwd: scratch });
    const openpaw = join(prefix, 'bin', 'openpaw');

    expect((await run(openpaw, ['--version'])).stdout.trim()).toBe(`openpaw ${CLI_VERSION}`);
    const env = { PATH: process.env['PATH'] ?? '', OPENPAW_API_URL: url, OPENPAW_TOKEN: 'packaged.token' };
    const status = await run(openpaw, ['status', runId, '--json'], { env }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(status.code).toBe(5);
    expect(JSON.parse(status.stdout)).toMatchObject({ version: 1, command: 'status', exitCode: 5, result: { runId, state: 'SOLVING' } });
    expect((await run(openpaw, ['completion', 'fish'], { env })).stdout).toContain('complete -c openpaw');
  }, 120_000);
});
