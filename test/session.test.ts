// The signal handling of long commands (src/cli/session.ts) and the cancellable exact pass of `gap` and `eval`:
// the first signal asks the work to finish its block, the second abandons an exact pass in progress, and a pass
// stopped between chunks gives no result rather than a gap over part of the data.
import { describe, expect, it, vi } from 'vitest';
import { Writable } from 'node:stream';
import { interruptible, runCommand, withInterrupts } from '../src/cli/session.js';
import { passUnlessStopped } from '../src/cli/progress.js';
import { modelProblem } from '../src/engine/problem.js';
import { ChainModel } from '../src/models/chain.js';
import { syntheticChain } from '../src/data/synthetic.js';
import { fullOraclePass } from '../src/solvers/common.js';
import type { Io } from '../src/cli/common.js';

function sink(): { io: Io; text: () => string } {
  let text = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((text += String(chunk)), done()) }) as unknown as NodeJS.WriteStream;
  return { io: { stdout: stream, stderr: stream }, text: () => text };
}

describe('two-stage interrupts', () => {
  it('the first SIGTERM aborts `signal`, the second `urgent`; the exit status is 143; handlers go with dispose()', () => {
    const { io, text } = sink();
    const before = process.listenerCount('SIGTERM');
    const interrupt = interruptible(io, 'finishing the current pass');
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    try {
      expect(interrupt.exitCode()).toBeUndefined();
      process.emit('SIGTERM');
      expect(interrupt.signal.aborted).toBe(true);
      expect(interrupt.urgent.aborted).toBe(false);
      expect(interrupt.exitCode()).toBe(143);
      expect(text()).toMatch(/interrupted by SIGTERM: finishing the current pass/);
      process.emit('SIGHUP');
      expect(interrupt.urgent.aborted).toBe(true);
      expect(text()).toMatch(/SIGHUP again: abandoning any exact pass in progress/);
      expect(interrupt.exitCode()).toBe(143); // the first signal decides the status
    } finally {
      interrupt.dispose();
    }
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});

describe('signals in every phase of a command run (runCommand)', () => {
  it('before the work: stop at once with a note; during it: abort the work; after it: write the results, then 129', async () => {
    const { io, text } = sink();
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    try {
      await runCommand(io, async () => {
        process.emit('SIGINT');
        return 0;
      });
      expect(exit).toHaveBeenCalledWith(130);
      expect(text()).toMatch(/interrupted by SIGINT before the work started: nothing was written/);
    } finally {
      exit.mockRestore();
    }
    let aborted = false;
    const code = await runCommand(io, async () => {
      const worked = await withInterrupts(io, 'finishing the current pass', async (signal) => {
        process.emit('SIGTERM');
        aborted = signal.aborted;
        return 0;
      });
      expect(worked).toBe(143);
      return worked;
    });
    expect(aborted).toBe(true);
    expect(code).toBe(143);
    const late = await runCommand(io, async () => {
      await withInterrupts(io, 'finishing', async () => 0);
      process.emit('SIGHUP'); // while the results are written: a note, and the status
      return 0;
    });
    expect(late).toBe(129);
    expect(text()).toMatch(/interrupted by SIGHUP: writing the results first/);
  });

  it('a real signal that arrives while the work holds the thread is taken in before the status', async () => {
    const { io } = sink();
    const code = await runCommand(io, async () =>
      withInterrupts(io, 'finishing', async () => {
        process.kill(process.pid, 'SIGTERM'); // queued: delivered to the handlers only once the event loop turns
        return 0;
      }),
    );
    expect(code).toBe(143);
  });
});

describe('a command pass stopped between chunks', () => {
  const data = syntheticChain({ sequences: 300 });
  const model = new ChainModel({ numFeatures: data.numFeatures, numLabels: data.numLabels });
  const problem = modelProblem(model, data.examples.map((e) => e.x), data.examples.map((e) => e.y), { passChunk: 50 });
  const w = Float64Array.from({ length: model.dim }, (_, j) => Math.sin(j));

  it('gives no pass when the signal stops it mid-way, and the whole pass otherwise', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const stopped = await passUnlessStopped(problem, w, { signal: controller.signal, onProgress: (p) => (seen.push(p.done), p.done === 100 && controller.abort('SIGTERM')) });
    expect(stopped).toBeUndefined();
    expect(seen).toEqual([50, 100]); // stopped between chunks, not after the whole pass
    const whole = await passUnlessStopped(problem, w, { signal: new AbortController().signal });
    expect(whole!.hingeSum).toBe(fullOraclePass(problem, w).hingeSum);
  });

  it('passes other failures on', async () => {
    const bad = new Float64Array(3);
    await expect(passUnlessStopped(problem, bad, { signal: new AbortController().signal })).rejects.toThrow(/w must be a Float64Array of length/);
  });
});
