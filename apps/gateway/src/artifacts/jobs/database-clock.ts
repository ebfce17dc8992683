import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { GATEWAY_DATA_SOURCE } from '../../projection/database.js';

/**
 * The time as PostgreSQL reads it, to the microsecond (ISO 8601, UTC). An artifact job's request
 * time is read here, not from the gateway's clock: the artifacts service's sources and chunks are
 * stamped `created_at = now()` by the same database (one PostgreSQL, a schema per service), so a
 * deferred snapshot "as of the request" compares two readings of one clock, and a skewed gateway
 * host cannot move a chunk across it.
 */
@Injectable()
export class DatabaseClock {
  constructor(@Inject(GATEWAY_DATA_SOURCE) private readonly dataSource: Pick<DataSource, 'query'>) {}

  async now(): Promise<string> {
    // Text, not a Date: a JavaScript Date keeps milliseconds, and a truncated reading would leave out
    // a chunk indexed in the same millisecond before the request.
    const [row] = await this.dataSource.query<{ now: string }[]>(`select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as now`);
    if (row === undefined) throw new Error('PostgreSQL answered no time');
    return row.now;
  }
}
