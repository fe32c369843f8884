// One settings schema for every front end (src/solvers/settings.ts, src/multiclass-fw/settings.ts): each refusal of
// the CLI's solver flags is also a refusal of the library, in the same words (the CLI runs the library's validator),
// hooks are not settings, and the error codes are stable.
import { describe, expect, it } from 'vitest';
import { FormatError, GapbcfwError, InputError, MissingPeerError, OptionError } from '../src/core/errors.js';
import { OutputError } from '../src/io/output.js';
import { MulticlassLogistic } from '../src/multiclass-fw/problem.js';
import { validateMcfwSettings, type McfwSettings } from '../src/multiclass-fw/settings.js';
import { trainMulticlassFw } from '../src/multiclass-fw/solvers.js';
import { createSolver, train } from '../src/solvers/index.js';
import { SETTINGS, validateSettings, type TrainSettings } from '../src/solvers/settings.js';
import { cli } from './helpers/capture.js';
import { tinyChain } from './helpers/tiny.js';

/** The message `gapbcfw ARGV` exits 2 with (without the `gapbcfw: ` prefix). */
async function cliRefusal(...argv: string[]): Promise<string> {
  const r = await cli(...argv);
  expect(r.code, r.stderr).toBe(2);
  return r.stderr.trim().replace(/^gapbcfw: /, '');
}

/** The message the library refuses `settings` with. */
function libraryRefusal(settings: TrainSettings): string {
  try {
    validateSettings(settings);
  } catch (e) {
    expect(e).toBeInstanceOf(OptionError);
    return (e as Error).message;
  }
  throw new Error(`the library accepted ${JSON.stringify(settings)}`);
}

// Every cross-setting rule the CLI applies to solver flags, with the library settings that mean the same.
const RULES: [string[], TrainSettings][] = [
  [['--solver', 'cutting-plane', '--sampling', 'perm'], { solver: 'cutting-plane', sampling: 'perm' }],
  [['--solver', 'cutting-plane', '--averaging'], { solver: 'cutting-plane', averaging: true }],
  [['--solver', 'cutting-plane', '--no-averaging'], { solver: 'cutting-plane', averaging: false }],
  [['--solver', 'cutting-plane', '--no-line-search'], { solver: 'cutting-plane', lineSearch: false }],
  [['--solver', 'cutting-plane', '--cache'], { solver: 'cutting-plane', cache: true }],
  [['--solver', 'cutting-plane', '--gap-check', '5'], { solver: 'cutting-plane', gapCheck: 5 }],
  [['--qp-tolerance', '0.2'], { qpTolerance: 0.2 }],
  [['--solver', 'ssg', '--inactive-window', '5'], { solver: 'ssg', inactiveWindow: 5 }],
  [['--solver', 'fw', '--sampling', 'perm'], { solver: 'fw', sampling: 'perm' }],
  [['--solver', 'fw', '--averaging'], { solver: 'fw', averaging: true }],
  [['--solver', 'fw', '--no-averaging'], { solver: 'fw', averaging: false }],
  [['--solver', 'fw', '--gap-check', '3'], { solver: 'fw', gapCheck: 3 }],
  [['--solver', 'fw', '--overlap'], { solver: 'fw', overlap: true }],
  [['--solver', 'ssg', '--sampling', 'gap'], { solver: 'ssg', sampling: 'gap' }],
  [['--solver', 'ssg', '--batch', '4'], { solver: 'ssg', batch: 4 }],
  [['--solver', 'ssg', '--no-line-search'], { solver: 'ssg', lineSearch: false }],
  [['--solver', 'ssg', '--cache', '--cache-size', '5'], { solver: 'ssg', cache: { maxSize: 5 } }],
  [['--solver', 'ssg', '--step', 'away'], { solver: 'ssg', step: 'away' }],
  [['--batch', '1', '--overlap'], { batch: 1, overlap: true }],
  [['--sampling', 'gap', '--averaging'], { sampling: 'gap', averaging: true }],
  [['--solver', 'bcpfw', '--no-line-search'], { step: 'pairwise', lineSearch: false }],
  [['--gap-degree', '2'], { gapDegree: 2 }],
];

describe('one validator for the library and the CLI', () => {
  it.each(RULES)('gapbcfw train synthetic: %s is refused as the library refuses it', async (argv, settings) => {
    const message = await cliRefusal('train', 'synthetic:', ...argv, '--quiet');
    expect(libraryRefusal(settings)).toBe(message);
    // Every front end of the library runs it: train, createSolver (and so trainAsync and the path).
    const { problem } = tinyChain(4, { n: 5 });
    expect(() => train(problem, settings)).toThrow(message);
    expect(() => createSolver(problem, settings)).toThrow(message);
  });

  it('values out of range: the same words, the CLI quoting what was typed', async () => {
    for (const [flag, key, value] of [['batch', 'batch', 0], ['gap-check', 'gapCheck', 0], ['lambda', 'lambda', -1], ['cache-f', 'cache.factor', -1], ['seed', 'seed', 2 ** 40]] as const) {
      const message = await cliRefusal('train', 'synthetic:', ...(key.startsWith('cache.') ? ['--cache'] : []), `--${flag}`, String(value));
      const settings = key === 'cache.factor' ? { cache: { factor: value } } : { [key]: value };
      expect(libraryRefusal(settings).replace(/got (\S+)$/, "got '$1'")).toBe(message);
    }
  });

  it('rules about flags themselves stay in the CLI (a library object cannot express them)', async () => {
    expect(await cliRefusal('train', 'synthetic:', '--averaging', '--no-averaging')).toBe('--averaging and --no-averaging contradict each other');
    expect(await cliRefusal('train', 'synthetic:', '--cache-size', '5')).toBe('--cache-size, --cache-f, --cache-nu need --cache');
    expect(await cliRefusal('train', 'synthetic:', '--solver', 'bcpfw', '--step', 'away')).toBe('--solver bcpfw is --step pairwise: it contradicts --step away');
  });

  it('the CLI flags are the table: every setting with a flag is an option of train, with its range in help', async () => {
    const help = (await cli('help', 'train')).stdout;
    for (const o of SETTINGS) {
      if (o.flag) expect(help).toContain(`--${o.flag}`);
      if (o.negation) expect(help).toContain(`--${o.negation}`);
    }
    expect(help).toContain('--batch TAU');
    expect(help).toContain('an integer from 1 to 1e9');
  });

  it('hooks, threads and unknown names are refused among settings, with where they go', () => {
    expect(libraryRefusal({ onProgress: () => {} } as TrainSettings)).toBe('onProgress is a hook, not a setting: pass it in the hooks, train(problem, settings, { onProgress })');
    expect(libraryRefusal({ threads: 2 } as TrainSettings)).toMatch(/threads is a process-wide setting, not a solver setting: call setThreads/);
    expect(libraryRefusal({ gapTreshold: 0.1 } as TrainSettings)).toBe("unknown setting 'gapTreshold' (did you mean 'gapThreshold'?)");
    expect(libraryRefusal({ cache: { size: 5 } } as TrainSettings)).toBe("unknown cache setting 'size' (maxSize, factor, nu, initialGap)");
    // A valid combination passes, and settings are plain data: JSON keeps them.
    const ok: TrainSettings = { solver: 'bcfw', step: 'pairwise', sampling: 'gap', cache: { maxSize: 20 }, batch: 4, overlap: true, lambda: 0.01 };
    expect(() => validateSettings(ok)).not.toThrow();
    expect(JSON.parse(JSON.stringify(ok))).toEqual(ok);
  });
});

describe('multiclass Frank-Wolfe settings', () => {
  const MCFW: [string[], McfwSettings][] = [
    [['--solver', 'fw', '--k0', '5'], { solver: 'fw', tau: 1, k0: 5 }],
    [['--solver', 'sfw', '--nu', '5'], { solver: 'sfw', tau: 1, nu: 5 }],
    [['--solver', 'afw', '--batch-scale', '2'], { solver: 'afw', tau: 1, batchScale: 2 }],
    [['--solver', 'fw', '--svrf-global-step'], { solver: 'fw', tau: 1, svrfGlobalStep: true }],
    [['--solver', 'sfw', '--line-search'], { solver: 'sfw', tau: 1, step: 'line-search' }],
    [['--solver', 'fw'], { solver: 'fw' } as McfwSettings],
  ];
  it.each(MCFW)('gapbcfw multiclass-fw libsvm:x --tau 1 %s is refused as the library refuses it', async (argv, settings) => {
    const message = await cliRefusal('multiclass-fw', 'libsvm:/nonexistent', ...(settings.tau === undefined ? [] : ['--tau', '1']), ...argv, '--quiet');
    expect(() => validateMcfwSettings(settings)).toThrow(OptionError);
    expect(() => validateMcfwSettings(settings)).toThrow(message);
    const p = new MulticlassLogistic({ X: { rows: 2, cols: 1, indptr: Int32Array.of(0, 1, 2), indices: Int32Array.of(0, 0), values: Float64Array.of(1, -1) }, y: Int32Array.of(0, 1), numLabels: 2, labelNames: ['a', 'b'] });
    expect(() => trainMulticlassFw(p, settings)).toThrow(message);
  });
});

describe('error codes', () => {
  it('every error class carries its stable code', () => {
    expect(new GapbcfwError('x').code).toBe('ERR_GAPBCFW_INTERNAL');
    expect(new InputError('x').code).toBe('ERR_GAPBCFW_BAD_INPUT');
    expect(new FormatError('x', 'f.txt', 3).code).toBe('ERR_GAPBCFW_BAD_FORMAT');
    expect(new FormatError('x', 'f.txt', 3).message).toBe('f.txt:3: x');
    expect(new OptionError('x').code).toBe('ERR_GAPBCFW_BAD_OPTION');
    expect(new OutputError('x').code).toBe('ERR_GAPBCFW_WRITE_FAILED');
    const peer = new MissingPeerError('vega', 'plotting', '^6.4.0');
    expect(peer.code).toBe('ERR_GAPBCFW_MISSING_PEER');
    expect(peer.message).toBe("plotting needs the optional package 'vega': npm install vega@^6.4.0");
    for (const e of [new InputError('x'), new FormatError('x'), new OptionError('x')]) expect(e).toBeInstanceOf(InputError);
  });

  it('what the library throws carries them: a bad setting, bad data, a malformed file', async () => {
    const { problem } = tinyChain(4, { n: 5 });
    expect(() => train(problem, { batch: 0 })).toThrow(expect.objectContaining({ code: 'ERR_GAPBCFW_BAD_OPTION' }));
    const { loadLibsvm } = await import('../src/data/libsvm.js');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'codes-')), 'bad.libsvm');
    writeFileSync(file, '1 1:0.5\nnot a row\n');
    expect(() => loadLibsvm(file)).toThrow(expect.objectContaining({ code: 'ERR_GAPBCFW_BAD_FORMAT' }));
  });
});

describe('file formats with their owners', () => {
  it('the multiclass-FW weight file round-trips and refuses what is not one', async () => {
    const { saveMulticlassFwWeights, loadMulticlassFwWeights } = await import('../src/multiclass-fw/weights-file.js');
    const { writeModelFile } = await import('../src/io/model-file.js');
    const { mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'mcfw-weights-'));
    const m = { W: Float64Array.of(1, -2, 0.5, 3, 0, -1), solver: 'afw', tau: 3, numFeatures: 3, numClasses: 2, labelNames: ['neg', 'pos'], bias: true, iterations: 40, objective: 0.31 };
    saveMulticlassFwWeights(join(dir, 'w.gbm'), m);
    const back = loadMulticlassFwWeights(join(dir, 'w.gbm'));
    expect({ ...back, W: Array.from(back.W) }).toEqual({ ...m, W: Array.from(m.W) });
    writeModelFile(join(dir, 'short.gbm'), { meta: { format: 'gapbcfw-multiclass-fw', numFeatures: 3, numClasses: 2, labelNames: ['a', 'b'] }, arrays: { W: new Float64Array(5) } });
    expect(() => loadMulticlassFwWeights(join(dir, 'short.gbm'))).toThrow(/short\.gbm: W must hold numFeatures x numClasses = 6 float64 values/);
    writeModelFile(join(dir, 'other.gbm'), { meta: { format: 'gapbcfw-path' }, arrays: {} });
    expect(() => loadMulticlassFwWeights(join(dir, 'other.gbm'))).toThrow(expect.objectContaining({ code: 'ERR_GAPBCFW_BAD_FORMAT' }));
  });

  it('gap shards: the partials of N shards merge into the numbers of one pass, and partials of other jobs are refused', async () => {
    const { gapPartial, combineGapPartials, parseShard, shardRange, readGapPartials } = await import('../src/engine/gap-shards.js');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const n = 7;
    const hinge = [0.5, 0, 1.25, 0.75, 0, 2, 0.125];
    const loss = [0, 0, 1, 0.5, 0, 1, 0];
    const w = Float64Array.of(1, -2, 0.5);
    const whole = combineGapPartials([gapPartial({ w, lambda: 0.1, dual: 0.4, data: 'd', part: 'train', n, shard: [0, 1], start: 0, hinge, loss })]);
    expect(whole.primal).toBeCloseTo(0.5 * 0.1 * 5.25 + hinge.reduce((a, b) => a + b) / n, 15);
    const dir = mkdtempSync(join(tmpdir(), 'shards-'));
    const files = [2, 0, 1].map((i) => {
      const { start, end } = shardRange(n, [i, 3]);
      const file = join(dir, `part-${i}.json`);
      writeFileSync(file, JSON.stringify(gapPartial({ w, lambda: 0.1, dual: 0.4, data: 'd', part: 'train', n, shard: parseShard(`${i}/3`), start, hinge: hinge.slice(start, end), loss: loss.slice(start, end) })));
      return file;
    });
    expect(combineGapPartials(readGapPartials(files))).toEqual(whole);
    expect(() => readGapPartials(files.slice(0, 2))).toThrow('missing shards: got 2 of 3');
    expect(() => parseShard('3/3')).toThrow("--shard must be I/N with integers 0 <= I < N, got '3/3'");
  });
});
