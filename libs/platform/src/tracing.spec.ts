import {
  currentTraceId,
  currentTraceparent,
  formatTraceparent,
  parseTraceparent,
  startSpanContext,
  withTraceparent,
} from './tracing.js';

const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('trace context', () => {
  it('parses and formats W3C traceparent headers', () => {
    const parsed = parseTraceparent(incoming);
    expect(parsed).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 });
    expect(parsed && formatTraceparent(parsed)).toBe(incoming);
  });

  it.each(['', 'garbage', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'])(
    'rejects the invalid traceparent %j',
    (value) => {
      expect(parseTraceparent(value)).toBeUndefined();
    },
  );

  it('starts a child span of a parent, or a new sampled root', () => {
    const child = startSpanContext(incoming);
    expect(child.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(child.spanId).not.toBe('00f067aa0ba902b7');
    const root = startSpanContext();
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root.traceFlags).toBe(1);
  });

  it('continues an incoming trace across awaits and outside of it has none', async () => {
    expect(currentTraceparent()).toBeUndefined();
    const seen = await withTraceparent(incoming, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return { traceparent: currentTraceparent(), traceId: currentTraceId() };
    });
    expect(seen.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(seen.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(seen.traceparent).not.toBe(incoming);
    expect(currentTraceparent()).toBeUndefined();
  });

  it('starts a new trace when the header is missing or malformed', () => {
    const traceparent = withTraceparent('not-a-traceparent', () => currentTraceparent());
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});
