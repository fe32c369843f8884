/** Helpers for {@link OracleCounters}: a zero set, sums and differences (field by field). */
import type { OracleCounters } from '../core/batch.js';

const FIELDS = ['examples', 'predictions', 'scoringMs', 'decodingMs', 'checkingMs', 'readingMs', 'recordsRead', 'bytesRead'] as const;

/** All counters 0. */
export function zeroCounters(): OracleCounters {
  return { examples: 0, predictions: 0, scoringMs: 0, decodingMs: 0, checkingMs: 0, readingMs: 0, recordsRead: 0, bytesRead: 0 };
}

/** into += from (returns into). */
export function addCounters(into: OracleCounters, from: Readonly<OracleCounters>): OracleCounters {
  for (const k of FIELDS) into[k] += from[k];
  return into;
}

/** a - b, a fresh object. */
export function subtractCounters(a: Readonly<OracleCounters>, b: Readonly<OracleCounters>): OracleCounters {
  const d = zeroCounters();
  for (const k of FIELDS) d[k] = a[k] - b[k];
  return d;
}

/** The read statistics of a streamed data set as counters (see Dataset.readStats). */
export function readCounters(stats: { reads: number; bytes: number; ms: number } | undefined): OracleCounters {
  const c = zeroCounters();
  if (stats) {
    c.recordsRead = stats.reads;
    c.bytesRead = stats.bytes;
    c.readingMs = stats.ms;
  }
  return c;
}
