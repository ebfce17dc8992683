import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { freshDatabase, privateNatsServer, testInfra } from './index.js';

describe('test infra harness', () => {
  it('gives a real PostgreSQL with fresh databases per suite', async () => {
    const url = await freshDatabase('harness');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ version: string }>('select version()');
    await client.end();
    expect(rows[0]?.version).toMatch(/PostgreSQL/);
  });

  it('gives a real nats-server with JetStream, shared and private', async () => {
    const own = await privateNatsServer();
    try {
      for (const url of [testInfra().natsUrl, own.url]) {
        const nc = await connect({ servers: url });
        const jsm = await jetstreamManager(nc);
        const info = await jsm.getAccountInfo();
        expect(info.limits).toBeDefined();
        await nc.close();
      }
    } finally {
      await own.dispose();
    }
  });
});
