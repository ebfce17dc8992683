import { Storage } from '@google-cloud/storage';
import { dockerEngineReachable } from '@openpaw/testing';
import { GcsBlobStore } from './gcs-blob-store.js';

/**
 * The GCS adapter against the real emulator (fsouza/fake-gcs-server) in a container. It runs where a
 * Docker engine answers. Where none does, this test does not exercise the emulator: it asserts that
 * no engine is reachable, which is the record that the real-emulator leg did not run (the wire-level
 * spec, gcs-blob-store.spec.ts, runs everywhere).
 */
describe('GcsBlobStore against fake-gcs-server (testcontainers)', () => {
  it('round-trips, lists and deletes through the real emulator where Docker is reachable', async () => {
    const docker = await dockerEngineReachable();
    if (!docker) {
      expect(docker).toBe(false);
      return;
    }
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('fsouza/fake-gcs-server:1.52')
      .withCommand(['-scheme', 'http', '-port', '4443', '-backend', 'memory'])
      .withExposedPorts(4443)
      .withWaitStrategy(Wait.forHttp('/storage/v1/b', 4443))
      .start();
    try {
      const apiEndpoint = `http://${container.getHost()}:${container.getMappedPort(4443)}`;
      await new Storage({ apiEndpoint, projectId: 'openpaw-it' }).createBucket('openpaw-it');
      const store = new GcsBlobStore({ bucket: 'openpaw-it', projectId: 'openpaw-it', apiEndpoint });

      const put = await store.put('runs/1/report.json', '{"ok":true}', { contentType: 'application/json', metadata: { run: '1' } });
      expect(put).toMatchObject({ key: 'runs/1/report.json', size: 11, contentType: 'application/json', metadata: { run: '1' } });
      const got = await store.get('runs/1/report.json');
      expect(got.body.toString()).toBe('{"ok":true}');
      expect(got.info.metadata).toEqual({ run: '1' });

      await store.put('runs/1/a.txt', 'a');
      await store.put('runs/2/b.txt', 'b');
      const page = await store.list({ prefix: 'runs/1/', pageSize: 1 });
      expect(page.items.map((i) => i.key)).toEqual(['runs/1/a.txt']);
      const rest = await store.list({ prefix: 'runs/1/', pageSize: 1, pageToken: page.nextPageToken! });
      expect(rest.items.map((i) => i.key)).toEqual(['runs/1/report.json']);

      expect(await store.delete('runs/1/a.txt')).toBe(true);
      expect(await store.head('runs/1/a.txt')).toBeUndefined();
      expect(await store.delete('runs/1/a.txt')).toBe(false);
    } finally {
      await container.stop();
    }
  }, 120_000);
});
