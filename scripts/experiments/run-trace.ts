/** The JSONL trace of one (method, seed) run of an experiment script, as `gapbcfw plot` and summarize.ts read it. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes the events of a run (one JSON object per line) to DIR/METHOD-seedS.jsonl and returns the file. */
export function writeRunTrace(dir: string, method: string, seed: number, events: readonly object[]): string {
  const file = join(dir, `${method.replace(/[^A-Za-z0-9]+/g, '-')}-seed${seed}.jsonl`);
  writeFileSync(file, `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
  return file;
}
