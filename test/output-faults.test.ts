// Disk faults injected into node:fs (they need no root and no small file system): ENOSPC, EDQUOT and EIO
// during a write give one OutputError naming the file and leave nothing behind; the old file stays intact.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { writeModelFile } from '../src/io/model-file.js';
import { OutputError, StreamedOutput, writeOutput } from '../src/io/output.js';

/** The fault the next writes raise (undefined: none). */
const fault: { code?: string } = {};
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const writeSync = ((...args: Parameters<typeof fs.writeSync>) => {
    if (fault.code) throw Object.assign(new Error(`${fault.code}: injected fault, write`), { code: fault.code });
    return (fs.writeSync as (...a: unknown[]) => number)(...args);
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(['ENOSPC', 'EDQUOT', 'EIO'])('an injected %s', (code) => {
  it('writeOutput / writeModelFile: one line naming the file, the old file intact, no temporary file', () => {
    const file = join(dir, `${code}.gbm`);
    writeFileSync(file, 'previous');
    fault.code = code;
    try {
      let error: unknown;
      try {
        writeModelFile(file, { meta: { kind: 'x' }, arrays: { w: new Float64Array(8) } });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(OutputError);
      expect((error as Error).message).toBe(`cannot write ${file}: injected fault (${code}); the partial output was removed`);
      expect((error as Error).message).not.toContain('\n');
      expect(readFileSync(file, 'utf8')).toBe('previous');
      expect(() => writeOutput(join(dir, `${code}-new.txt`), 'x')).toThrow(OutputError);
      expect(readdirSync(dir).filter((f) => f.startsWith(code) || f.includes('.tmp-')).sort()).toEqual([`${code}.gbm`]);
    } finally {
      fault.code = undefined;
    }
  });

  it('StreamedOutput: the partial file is removed', () => {
    const file = join(dir, `${code}.jsonl`);
    const out = StreamedOutput.open(file);
    out.write('{"pass":1}\n');
    fault.code = code;
    try {
      expect(() => out.write('{"pass":2}\n')).toThrow(new RegExp(`cannot write .*${code}\\.jsonl: injected fault \\(${code}\\)`));
    } finally {
      fault.code = undefined;
    }
    expect(readdirSync(dir)).not.toContain(`${code}.jsonl`);
  });
});
