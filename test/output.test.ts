// Every write goes through src/io/output.ts: atomic onto regular files (links followed), streamed to
// devices and FIFOs, nothing left behind on a full disk (a real small tmpfs where this machine lets us mount
// one, and /dev/full), the check of outputs before a run, and the checkpoint lock and stale-temp cleaning.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, constants, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../src/core/errors.js';
import { CheckpointWriter } from '../src/solvers/checkpoint.js';
import { checkOutputs, lockOutput, makeOutputDir, OutputError, removeStaleTemps, StreamedOutput, writeFailure, writeOutput } from '../src/io/output.js';
import { unless } from './helpers/skips.js';

const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-output-'));
const hasFifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version'], { stdio: 'ignore' }).error === undefined;
const hasDevFull = existsSync('/dev/full');

/** A small tmpfs of `size` (e.g. '64k'), when this machine lets the test mount one (root on Linux); else undefined. */
function smallTmpfs(name: string, size: string, readOnly = false): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const mount = join(dir, name);
  mkdirSync(mount, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}${readOnly ? ',ro' : ''}`, 'tmpfs', mount], { stdio: 'ignore' });
  return r.status === 0 ? mount : undefined;
}
const mounts: string[] = [];
const full = smallTmpfs('full', '64k');
const readOnly = smallTmpfs('ro', '64k', true);
for (const m of [full, readOnly]) if (m) mounts.push(m);
afterAll(() => {
  for (const m of mounts) spawnSync('umount', [m], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
});

/** A process id that no process has now (a child that has exited). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

const temps = (folder: string) => readdirSync(folder).filter((f) => f.includes('.tmp-'));

describe('writeOutput', () => {
  it('replaces a regular file atomically, keeping its permissions and leaving no temporary file', () => {
    const file = join(dir, 'model.bin');
    writeFileSync(file, 'old');
    chmodSync(file, 0o600);
    writeOutput(file, 'new content');
    expect(readFileSync(file, 'utf8')).toBe('new content');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(temps(dir)).toEqual([]);
  });

  it('removes the temporary files that killed writers of the same file left, not those of running ones', () => {
    const folder = mkdtempSync(join(dir, 'killed-'));
    const file = join(folder, 'model.gbm');
    const dead = `.model.gbm.tmp-${deadPid()}-abc123`;
    const running = `.model.gbm.tmp-${process.pid}-def456`;
    for (const f of [dead, running]) writeFileSync(join(folder, f), 'partial');
    writeOutput(file, 'whole');
    expect(readdirSync(folder).sort()).toEqual([running, 'model.gbm'].sort());
  });

  it('writes the target of a symbolic link and keeps the link (also a dangling one)', () => {
    const target = join(dir, 'real.gbm');
    const link = join(dir, 'link.gbm');
    writeFileSync(target, 'old');
    symlinkSync(target, link);
    writeOutput(link, 'through the link');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('through the link');
    const dangling = join(dir, 'dangling.gbm');
    symlinkSync('not-yet.gbm', dangling);
    writeOutput(dangling, 'created');
    expect(readlinkSync(dangling)).toBe('not-yet.gbm');
    expect(readFileSync(join(dir, 'not-yet.gbm'), 'utf8')).toBe('created');
  });

  it('streams to /dev/null (it stays a character device) and to stdout for -', () => {
    writeOutput('/dev/null', 'discarded');
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    const chunks: string[] = [];
    writeOutput('-', 'to stdout', { stdout: { write: (c) => chunks.push(Buffer.from(c).toString()) } });
    expect(chunks).toEqual(['to stdout']);
  });

  it('streams to a FIFO (its reader gets the bytes, the FIFO stays)', unless(hasFifo, 'needs mkfifo (POSIX FIFOs)'), async () => {
    const fifo = join(dir, 'out.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = spawn('cat', [fifo]);
    let got = '';
    reader.stdout.on('data', (b) => (got += b));
    const done = new Promise((r) => reader.on('exit', r));
    writeOutput(fifo, 'through the pipe\n');
    await done;
    expect(got).toBe('through the pipe\n');
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('names the path of a folder that does not exist, and refuses a folder as the file', () => {
    expect(() => writeOutput(join(dir, 'no', 'such', 'x.gbm'), 'x')).toThrow(/cannot write .*no\/such\/x\.gbm: no such file or directory \(ENOENT\)/);
    expect(() => writeOutput(dir, 'x')).toThrow(InputError);
    expect(() => writeOutput(dir, 'x')).toThrow(/is a folder/);
  });

  it('a device that is full: OutputError naming it (exit 1 in the CLI), not an InputError', unless(hasDevFull, 'needs /dev/full'), () => {
    let error: unknown;
    try {
      writeOutput('/dev/full', Buffer.alloc(4096));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OutputError);
    expect(error).not.toBeInstanceOf(InputError);
    expect((error as Error).message).toBe('cannot write /dev/full: no space left on device (ENOSPC)');
  });

  it('a full tmpfs: the old file stays intact, a new one is not created, no temporary file is left', unless(full !== undefined, 'needs a small tmpfs (mount -t tmpfs: root on Linux)'), () => {
    const old = join(full!, 'old.gbm');
    writeFileSync(old, 'the previous model');
    expect(() => writeOutput(old, Buffer.alloc(1 << 20))).toThrow(/cannot write .*old\.gbm: no space left on device \(ENOSPC\); the partial output was removed/);
    expect(readFileSync(old, 'utf8')).toBe('the previous model');
    expect(() => writeOutput(join(full!, 'new.gbm'), Buffer.alloc(1 << 20))).toThrow(OutputError);
    expect(readdirSync(full!)).toEqual(['old.gbm']);
  });
});

describe('StreamedOutput (traces, prepared horse sets)', () => {
  it('writes as it goes, appends when asked, and -> stdout', () => {
    const file = join(dir, 'trace.jsonl');
    const a = StreamedOutput.open(file);
    a.write('{"pass":1}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"pass":1}\n'); // on disk before close: tail -f works
    a.close();
    const b = StreamedOutput.open(file, { append: true });
    b.write(Buffer.from('{"pass":2}\n'));
    b.close();
    expect(readFileSync(file, 'utf8')).toBe('{"pass":1}\n{"pass":2}\n');
  });

  it('on a full disk a new file is removed and an appended one cut back to its old length', unless(full !== undefined, 'needs a small tmpfs (mount -t tmpfs: root on Linux)'), () => {
    const fresh = join(full!, 'fresh.jsonl');
    const out = StreamedOutput.open(fresh);
    expect(() => {
      for (let k = 0; k < 1000; k++) out.write(`${'x'.repeat(1000)}\n`);
    }).toThrow(/cannot write .*fresh\.jsonl: no space left on device \(ENOSPC\)/);
    expect(existsSync(fresh)).toBe(false);
    const kept = join(full!, 'kept.jsonl');
    writeFileSync(kept, 'line 1\n');
    const more = StreamedOutput.open(kept, { append: true });
    expect(() => {
      for (let k = 0; k < 1000; k++) more.write(`${'y'.repeat(1000)}\n`);
    }).toThrow(OutputError);
    expect(readFileSync(kept, 'utf8')).toBe('line 1\n');
    rmSync(kept);
  });

  it('a FIFO whose reader leaves (EPIPE): one note, the rest is dropped, the run goes on', unless(hasFifo, 'needs mkfifo (POSIX FIFOs)'), () => {
    const fifo = join(dir, 'trace.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const notes: string[] = [];
    const out = StreamedOutput.open(fifo, { warn: (m) => notes.push(m) });
    out.write('one\n');
    closeSync(reader);
    out.write('two\n');
    out.write('three\n');
    out.close();
    expect(notes).toEqual([`${fifo}: its reader closed it; nothing more is written there (EPIPE)`]);
    // A whole file whose reader left before it was complete is a failed job (exit 1), not quietly dropped.
    const epipe = Object.assign(new Error('EPIPE: broken pipe, write'), { code: 'EPIPE' });
    expect(writeFailure(epipe, fifo)).toBeInstanceOf(OutputError);
    expect(writeFailure(epipe, fifo).message).toBe(`cannot write ${fifo}: its reader closed it before the output was complete (EPIPE)`);
  });
});

describe('checkOutputs (before any work starts)', () => {
  it('refuses a missing folder, a folder as a file, an input, and two outputs that are one file', () => {
    const data = join(dir, 'data.txt');
    writeFileSync(data, 'x');
    expect(() => checkOutputs([{ path: join(dir, 'nope', 'm.gbm'), option: '--out' }])).toThrow(/--out .*nope\/m\.gbm: the folder .*nope does not exist/);
    expect(() => checkOutputs([{ path: dir, option: '--out' }])).toThrow(/--out .*: is a folder/);
    expect(() => checkOutputs([{ path: data, option: '--trace' }], [data])).toThrow(/--trace .*data\.txt: is an input of this command/);
    // --checkpoint equal to --out, before either exists (relative and absolute spellings)
    const model = join(dir, 'same.gbm');
    expect(() => checkOutputs([{ path: model, option: '--out' }, { path: join(dir, '.', 'same.gbm'), option: '--checkpoint' }])).toThrow(/--checkpoint .*: the same file as --out/);
    // the checkpoint a run resumes from may be rewritten by it
    writeFileSync(model, 'checkpoint');
    expect(() => checkOutputs([{ path: model, option: '--checkpoint', updates: true }], [model])).not.toThrow();
  });

  it('accepts a character device where the output can be streamed, not for a checkpoint', () => {
    expect(() => checkOutputs([{ path: '/dev/null', option: '--out' }, { path: '/dev/null', option: '--trace' }])).not.toThrow();
    expect(() => checkOutputs([{ path: '/dev/null', option: '--checkpoint', streamable: false }])).toThrow(/--checkpoint \/dev\/null: must be a regular file/);
    expect(() => checkOutputs([{ path: '-', option: '--checkpoint', streamable: false }])).toThrow(/needs a file name, not stdout/);
  });

  it('folders: an existing file is refused; a missing folder can be made when an ancestor is writable', () => {
    const file = join(dir, 'plain-file');
    writeFileSync(file, 'x');
    expect(() => checkOutputs([{ path: file, option: '--out-dir', kind: 'dir' }])).toThrow(/--out-dir .*plain-file: exists and is not a folder/);
    expect(() => checkOutputs([{ path: join(dir, 'a', 'b', 'c'), option: '--out-dir', kind: 'dir' }])).not.toThrow();
    expect(() => makeOutputDir(file, '--out-dir')).toThrow(/--out-dir .*plain-file: exists and is not a folder/);
    expect(() => makeOutputDir(join(file, 'sub'), '--out-dir')).toThrow(/a part of the path is a file, not a folder/);
  });

  it('refuses a folder that is not writable (a read-only file system)', unless(readOnly !== undefined, 'needs a small read-only tmpfs (mount -t tmpfs: root on Linux)'), () => {
    expect(() => checkOutputs([{ path: join(readOnly!, 'm.gbm'), option: '--out' }])).toThrow(/--out .*m\.gbm: the folder .* is not writable/);
  });
});

describe('checkpoint files: lock and stale temporary files', () => {
  it('a second writer of one checkpoint is refused while the first runs; a dead owner is taken over', async () => {
    const ck = join(dir, 'run.gbc');
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      writeFileSync(`${ck}.lock`, `${sleeper.pid}\n`);
      expect(() => new CheckpointWriter(ck)).toThrow(new RegExp(`--checkpoint .*run\\.gbc is being written by process ${sleeper.pid} \\(lock file .*run\\.gbc\\.lock\\)`));
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((r) => sleeper.on('exit', r));
    }
    writeFileSync(`${ck}.lock`, `${deadPid()}\n`);
    const writer = new CheckpointWriter(ck);
    expect(readFileSync(`${ck}.lock`, 'utf8')).toBe(`${process.pid}\n`);
    writer.close();
    expect(existsSync(`${ck}.lock`)).toBe(false);
    const release = lockOutput(ck);
    release();
    expect(existsSync(`${ck}.lock`)).toBe(false);
  });

  it('opening a checkpoint removes the temporary files of killed writers, not those of running ones', () => {
    const folder = join(dir, 'stale');
    mkdirSync(folder);
    const ck = join(folder, 'ck.gbc');
    const dead = `.ck.gbc.tmp-${deadPid()}-abc123`;
    const mine = `.ck.gbc.tmp-${process.pid}-def456`;
    const other = '.other.gbc.tmp-1-zzz';
    for (const f of [dead, mine, other]) writeFileSync(join(folder, f), 'partial');
    new CheckpointWriter(ck).close();
    expect(readdirSync(folder).sort()).toEqual([mine, other].sort());
    expect(removeStaleTemps(ck)).toEqual([]);
  });

  it('a checkpoint must be a regular file', () => {
    expect(() => new CheckpointWriter('/dev/null')).toThrow(/a checkpoint must be a regular file/);
  });
});
