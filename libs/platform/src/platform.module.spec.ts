import { Controller, Get, type INestApplication, InternalServerErrorException, Module, Param } from '@nestjs/common';
import { MessageLogContext } from './logging.js';
import { MetricsMessagingObserver } from './messaging-observer.js';
import { PlatformMetrics } from './metrics.js';
import { PlatformModule } from './platform.module.js';
import { ReadinessRegistry } from './health.js';
import { startService } from './bootstrap.js';

@Controller()
class PingController {
  @Get('ping')
  ping(): { pong: true } {
    return { pong: true };
  }

  @Get('items/:id')
  item(@Param('id') id: string): { id: string } {
    if (id === 'boom') throw new InternalServerErrorException('boom');
    return { id };
  }
}

let databaseUp = true;

@Module({
  imports: [
    PlatformModule.forService('platform-spec', {
      logLevel: 'silent',
      readiness: [
        {
          name: 'database',
          check: () => {
            if (!databaseUp) throw new Error('connection refused');
          },
        },
      ],
    }),
  ],
  controllers: [PingController],
})
class SpecModule {}

describe('PlatformModule', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startService({ name: 'platform-spec', module: SpecModule, defaultPort: 0, port: 0 }));
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers liveness without consulting dependencies', async () => {
    databaseUp = false;
    const response = await fetch(`${url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', service: 'platform-spec' });
    databaseUp = true;
  });

  it('answers readiness from the registered checks, static and added at run time', async () => {
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', details: { database: { status: 'up' } } });

    const unregister = app.get(ReadinessRegistry).register({
      name: 'nats',
      check: () => Promise.reject(new Error('not connected')),
    });
    const notReady = await fetch(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toMatchObject({ status: 'error', error: { nats: { status: 'down' } } });
    unregister();

    databaseUp = false;
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    databaseUp = true;
  });

  it('serves the shared metrics, fed by the messaging observer', async () => {
    app.get(MetricsMessagingObserver).onHandled('openpaw.cmd.solve.Solve.v1', 'ack', 5);
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const body = await response.text();
    expect(body).toContain('openpaw_messages_handled_total{service="platform-spec",subject="openpaw.cmd.solve.Solve.v1",outcome="ack"} 1');
    expect(body).toContain('# TYPE openpaw_outbox_lag_seconds histogram');
    expect(body).toContain('nodejs_eventloop_lag_seconds');
  });

  it('scopes log lines to a message', () => {
    const logs = app.get(MessageLogContext);
    const bindings = logs.run({ id: 'msg-1', correlationid: 'run-1', type: 'openpaw.cmd.solve.Solve.v1' }, () =>
      logs.logger.bindings(),
    );
    expect(bindings).toMatchObject({ runId: 'run-1', messageId: 'msg-1', messageType: 'openpaw.cmd.solve.Solve.v1' });
  });

  it('counts and times each HTTP request by route template and status; unmatched paths share one series; probes are not counted', async () => {
    for (const path of ['/items/1', '/items/2', '/items/boom', '/no/such/path', '/healthz', '/readyz']) await (await fetch(`${url}${path}`)).text();
    const { body } = await app.get(PlatformMetrics).scrape();
    expect(body).toContain('openpaw_http_requests_total{service="platform-spec",method="GET",route="/items/:id",status="200"} 2');
    expect(body).toContain('openpaw_http_requests_total{service="platform-spec",method="GET",route="/items/:id",status="500"} 1');
    expect(body).toContain('openpaw_http_requests_total{service="platform-spec",method="GET",route="unmatched",status="404"} 1');
    expect(body).toContain('openpaw_http_request_duration_seconds_count{service="platform-spec",method="GET",route="/items/:id"} 3');
    expect(body).not.toMatch(/route="\/(healthz|readyz)"/);
  });

  it('serves the app routes', async () => {
    expect(await (await fetch(`${url}/ping`)).json()).toEqual({ pong: true });
  });
});
