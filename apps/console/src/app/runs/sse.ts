/** One server-sent event (the fields the gateway's `/runs/:id/events` uses). */
export interface ServerSentEvent {
  readonly event: string;
  readonly data: string;
  readonly id?: string;
}

/**
 * Incremental parser of a `text/event-stream` (WHATWG HTML §9.2.6): feed it decoded chunks as they
 * arrive; it returns the events completed by each chunk. Comments (heartbeats) are skipped.
 * `EventSource` cannot send a bearer token, so the console reads the stream with `fetch`.
 */
export class ServerSentEventParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | undefined;

  feed(chunk: string): ServerSentEvent[] {
    this.buffer += chunk;
    const events: ServerSentEvent[] = [];
    let newline = this.buffer.search(/\r\n|\r|\n/);
    while (newline >= 0) {
      const line = this.buffer.slice(0, newline);
      const breakLength = this.buffer.startsWith('\r\n', newline) ? 2 : 1;
      this.buffer = this.buffer.slice(newline + breakLength);
      const completed = this.line(line);
      if (completed !== undefined) events.push(completed);
      newline = this.buffer.search(/\r\n|\r|\n/);
    }
    return events;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const raw = colon < 0 ? '' : line.slice(colon + 1);
    const value = raw.startsWith(' ') ? raw.slice(1) : raw;
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id') this.id = value;
    return undefined;
  }

  private dispatch(): ServerSentEvent | undefined {
    const data = this.data;
    const event = this.event;
    this.data = [];
    this.event = '';
    if (data.length === 0) return undefined;
    return { event: event === '' ? 'message' : event, data: data.join('\n'), ...(this.id === undefined ? {} : { id: this.id }) };
  }
}
