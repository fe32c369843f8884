import { describe, expect, it } from 'vitest';
import { createSolver, train, trainAsync } from '../src/solvers/index.js';
import type { TrainSettings } from '../src/solvers/settings.js';
import type { SolverCheckpoint } from '../src/solvers/common.js';
import { decodeModelFile, encodeModelFile } from '../src/io/model-file.js';
import { InputError } from '../src/core/errors.js';
import { tinyChain } from './helpers/tiny.js';

const strip = (trace: { seconds: number }[]) => trace.map(({ seconds: _s, ...rest }) => rest);

/** Through the model-file format, as the CLI stores checkpoints. */
function roundTrip(c: SolverCheckpoint): SolverCheckpoint {
  const back = decodeModelFile(encodeModelFile({ meta: c.meta, arrays: c.arrays }));
  return { meta: back.meta as SolverCheckpoint['meta'], arrays: back.arrays as Record<string, Float64Array> };
}

describe('checkpoint and resume', () => {
  const t = tinyChain(8, { n: 12 });
  const configs: TrainSettings[] = [
    { solver: 'bcfw', lambda: 0.1, maxPasses: 17, gapCheck: 5, gapThreshold: 0, seed: 4 },
    { solver: 'bcfw', lambda: 0.1, maxPasses: 17, gapCheck: 5, gapThreshold: 0, seed: 4, sampling: 'perm', averaging: false },
    { solver: 'fw', lambda: 0.1, maxPasses: 17, gapThreshold: 0 },
    { solver: 'ssg', lambda: 0.1, maxPasses: 17, gapCheck: 5, seed: 4, sampling: 'perm' },
    { solver: 'cutting-plane', lambda: 0.01, maxPasses: 17, gapThreshold: 0, inactiveWindow: 3 },
  ];

  it.each(configs)('a resumed run reproduces the uninterrupted one exactly (%o)', (options) => {
    const full = train(t.problem, options);
    for (const stopAfter of [1, 5, 11]) {
      const first = createSolver(t.problem, options);
      for (let p = 0; p < stopAfter; p++) expect(first.runPass()).toBe(true);
      const resumed = createSolver(t.problem, options, { resume: roundTrip(first.checkpoint()) });
      while (resumed.runPass());
      const r = resumed.result();
      expect(Array.from(r.w)).toEqual(Array.from(full.w));
      expect(strip(r.trace)).toEqual(strip(full.trace));
      expect(r.oracleCalls).toBe(full.oracleCalls);
    }
  });

  // A stop inside a pass (finishPass 0: stop at once) records the step it stopped at; the checkpoint handed out
  // at the stop is the state before the stopped run's certificate, so a resumed run is the uninterrupted one.
  const midPass: TrainOptions[] = [
    { solver: 'bcfw', lambda: 0.1, maxPasses: 17, gapCheck: 5, gapThreshold: 0, seed: 4 },
    { solver: 'bcfw', lambda: 0.1, maxPasses: 17, gapCheck: 5, gapThreshold: 0, seed: 4, sampling: 'perm', averaging: false },
    { solver: 'bcfw', lambda: 0.1, maxPasses: 17, gapCheck: 3, gapThreshold: 0, seed: 4, sampling: 'gap', step: 'pairwise', cache: true },
    { solver: 'ssg', lambda: 0.1, maxPasses: 17, gapCheck: 5, seed: 4, sampling: 'perm' },
  ];
  it.each(midPass)('a stop inside a pass resumes at the step where it stopped, as if never stopped (%o)', async (options) => {
    const full = train(t.problem, options);
    for (const stopAtCall of [5, 40, 101]) {
      const controller = new AbortController();
      let calls = 0;
      const counted = { ...t.problem, oracle: (i: number, w: Float64Array) => {
        if (++calls === stopAtCall) controller.abort();
        return t.problem.oracle(i, w);
      } };
      let atStop: SolverCheckpoint | undefined;
      const stopped = await trainAsync(counted, options, { signal: controller.signal, finishPass: 0, onCheckpoint: (c) => void (atStop = roundTrip(c)) });
      expect(stopped.stopReason).toBe('aborted');
      expect(atStop!.meta.passStep, `stopped at oracle call ${stopAtCall}`).toBeGreaterThan(0);
      // The stopped run's result certifies the iterate it stopped at (one more exact pass, not in the checkpoint).
      if (options.solver === 'bcfw') expect(stopped.gapIsExact).toBe(true);
      expect(stopped.trace.length).toBe(atStop!.meta.trace.length + 1);
      const resumed = createSolver(t.problem, options, { resume: atStop });
      while (resumed.runPass());
      const r = resumed.result();
      expect(Array.from(r.w)).toEqual(Array.from(full.w));
      expect(strip(r.trace)).toEqual(strip(full.trace));
      expect(r.oracleCalls).toBe(full.oracleCalls);
    }
  });

  it('batch FW stopped after an iteration resumes before that iteration\'s exact pass: the same trace and oracle calls as one run', async () => {
    const options: TrainSettings = { solver: 'fw', lambda: 0.1, maxPasses: 17, gapThreshold: 0 };
    const full = train(t.problem, options);
    const controller = new AbortController();
    let atStop: SolverCheckpoint | undefined;
    const stopped = await trainAsync(t.problem, options, { signal: controller.signal, onProgress: (e) => e.pass === 5 && controller.abort(), onCheckpoint: (c) => void (atStop = roundTrip(c)) });
    expect(stopped.stopReason).toBe('aborted');
    expect(stopped.gapIsExact).toBe(true);
    expect(atStop!.meta.trace.length).toBe(stopped.trace.length - 1);
    const resumed = createSolver(t.problem, options, { resume: atStop });
    while (resumed.runPass());
    expect(strip(resumed.result().trace)).toEqual(strip(full.trace));
    expect(resumed.result().oracleCalls).toBe(full.oracleCalls);
  });

  it('a stop finishes the pass when the rest of it takes at most finishPass seconds', async () => {
    const controller = new AbortController();
    let calls = 0;
    const counted = { ...t.problem, oracle: (i: number, w: Float64Array) => {
      if (++calls === 40) controller.abort();
      return t.problem.oracle(i, w);
    } };
    let atStop: SolverCheckpoint | undefined;
    const r = await trainAsync(counted, { lambda: 0.1, maxPasses: 17, gapThreshold: 0 }, { signal: controller.signal, finishPass: 3600, onCheckpoint: (c) => void (atStop = c) });
    expect(r.stopReason).toBe('aborted');
    expect(atStop!.meta.passStep).toBeUndefined();
    expect(r.passes).toBe(Math.ceil(40 / 12)); // the pass of the 40th block step, finished
  });

  it('trainAsync hands out checkpoints and resumes from them', async () => {
    const options: TrainSettings = { solver: 'bcfw', lambda: 0.1, maxPasses: 12, gapCheck: 4, gapThreshold: 0, seed: 2 };
    const saved: SolverCheckpoint[] = [];
    const full = await trainAsync(t.problem, options, { checkpointEvery: 3, onCheckpoint: (c) => void saved.push(roundTrip(c)) });
    expect(saved.map((c) => c.meta.passes)).toEqual([3, 6, 9, 12]);
    const resumed = await trainAsync(t.problem, options, { resume: saved[1] });
    expect(Array.from(resumed.w)).toEqual(Array.from(full.w));
    expect(strip(resumed.trace)).toEqual(strip(full.trace));
  });

  it('an abort stops the run with a certified gap', async () => {
    const controller = new AbortController();
    const r = await trainAsync(t.problem, { lambda: 0.1, maxPasses: 1000, gapThreshold: 0 }, { signal: controller.signal, onProgress: (e) => { if (e.pass === 3) controller.abort(); } });
    expect(r.stopReason).toBe('aborted');
    expect(r.passes).toBe(3);
    expect(r.gapIsExact).toBe(true);
  });

  it('refuses a checkpoint of another problem or other settings', () => {
    const c = createSolver(t.problem, { lambda: 0.1, seed: 1 }).checkpoint();
    expect(() => createSolver(t.problem, { lambda: 0.2, seed: 1 }, { resume: c })).toThrow(/lambda/);
    expect(() => createSolver(t.problem, { lambda: 0.1, seed: 1, sampling: 'perm' }, { resume: c })).toThrow(/sampling/);
    expect(() => createSolver(t.problem, { solver: 'fw', lambda: 0.1, seed: 1 }, { resume: c })).toThrow(/solver 'bcfw'/);
    expect(() => createSolver(tinyChain(8, { n: 5 }).problem, { lambda: 0.1, seed: 1 }, { resume: c })).toThrow(InputError);
  });
});
