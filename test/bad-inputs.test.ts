// The malformed-input corpus (test/fixtures/bad/manifest.json): every case through its library reader
// (a typed error with the expected class, message and line) and through the CLI in-process (exit code 2
// and a one-line reason naming the file, never a stack trace).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { FormatError, InputError } from '../src/core/errors.js';
import { modelProblem } from '../src/engine/problem.js';
import { loadConll, parseConll } from '../src/data/conll.js';
import { parseParallelPairs, readHansards } from '../src/data/alignment.js';
import { loadTask } from '../src/tasks/index.js';
import { buildModel } from '../src/tasks/model-kinds.js';
import { HorseDataset, prepareHorse } from '../src/data/horse.js';
import { loadIdxDataset } from '../src/data/idx.js';
import { loadLibsvm } from '../src/data/libsvm.js';
import { loadLspJoints } from '../src/data/lsp.js';
import { loadOcr } from '../src/data/ocr.js';
import { readCheckpoint } from '../src/solvers/checkpoint.js';
import { loadModel } from '../src/tasks/model.js';
import { loadPath } from '../src/path/path-file.js';
import { readDimacsMaxflow } from '../src/native/maxflow.js';
import { groupSeries, readTraces } from '../src/plot/traces.js';
import { buildFigure } from '../src/plot/figures.js';
import { readGapPartials } from '../src/engine/gap-shards.js';
import { loadConllTask } from '../src/tasks/conll.js';
import { createSolver } from '../src/solvers/index.js';
import { capture } from './helpers/capture.js';

interface BadCase {
  file: string;
  format: string;
  /** Key of READERS; null for a check of the command line itself (no library counterpart: only the CLI case runs). */
  reader: string | null;
  cli: string[];
  error: 'FormatError' | 'InputError';
  message: string;
  line?: number;
  /** The file inside a fixture folder that the error names (default: the fixture itself). */
  where?: string;
  /** A companion data set KIND:PATH for readers that pair the fixture with data. */
  data?: string;
  /** null: the library reader returns normally on this input (the CLI still refuses it). */
  libraryError?: null;
}

const BAD = fileURLToPath(new URL('./fixtures/bad/', import.meta.url));
const GOOD = join(BAD, 'good');
const manifest = JSON.parse(readFileSync(join(BAD, 'manifest.json'), 'utf8')) as { cases: BadCase[] };
const scratch = mkdtempSync(join(tmpdir(), 'gapbcfw-bad-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const fill = (s: string, file: string) => s.replaceAll('{F}', file).replaceAll('{G}', GOOD).replaceAll('{TMP}', scratch);

/** The problem of good/libsvm.txt as `gapbcfw train` builds it (for resuming checkpoints). */
async function libsvmProblem() {
  const t = await loadTask(`libsvm:${join(GOOD, 'libsvm.txt')}`);
  return modelProblem(buildModel(t.spec), t.train, { objective: t.spec });
}

/** Library entry points, by the manifest's `reader` key. Each is called with the fixture's path. */
const READERS: Record<string, (file: string, c: BadCase) => unknown> = {
  loadOcr: (f) => loadOcr(f),
  loadLibsvm: (f) => loadLibsvm(f),
  loadLibsvmTest: (f) => loadTask(`libsvm:${join(GOOD, 'libsvm.txt')}`, { test: `libsvm:${f}` }),
  loadConll: (f) => loadConll(f),
  readHansards: (f) => readHansards(f),
  parallelPairs: (f) => parseParallelPairs(readFileSync(f, 'utf8'), f),
  conllForTag: (f) => parseConll(readFileSync(f, 'utf8'), f, { columns: 'auto' }),
  loadLspJoints: (f) => loadLspJoints(f),
  loadIdxImages: (f) => loadIdxDataset(f, join(GOOD, 'idx-labels.idx1-ubyte')),
  loadIdxLabels: (f) => loadIdxDataset(join(GOOD, 'idx-images.idx3-ubyte'), f),
  readDimacsMaxflow: (f) => readDimacsMaxflow(f),
  readTraces: (f) => readTraces([f]),
  traceRuns: (f) => {
    // An empty trace is not an error for the library: it is listed, and `gapbcfw plot` refuses it.
    const t = readTraces([f]);
    expect(t.emptyFiles).toEqual([f]);
    expect(t.runs).toHaveLength(0);
    return t;
  },
  loadModel: (f) => loadModel(f),
  modelForData: (f, c) => loadTask(fill(c.data!, f), { model: loadModel(f) }),
  readCheckpoint: (f) => readCheckpoint(f),
  resumeCheckpoint: async (f) => createSolver(await libsvmProblem(), { lambda: 0.1, maxPasses: 4, gapThreshold: 0 }, { resume: readCheckpoint(f) }),
  loadPath: (f) => loadPath(f),
  horseDataset: (f) => new HorseDataset(f).load('all'),
  prepareHorse: (f) => prepareHorse(f, join(scratch, `prepared-${basename(f)}`)),
  readGapPartials: (f) => readGapPartials([f]),
  conllMinFrequency: (f) => loadConllTask(f, { minFrequency: 1e9 }),
  plotResidual: (f) => buildFigure(groupSeries(readTraces([f]).runs), { y: 'residual' }),
  plotPrimal: (f) => buildFigure(groupSeries(readTraces([f]).runs), { y: 'primal' }),
  trainingProblem: async (f, c) => {
    const t = await loadTask(fill(c.data!, f));
    return modelProblem(buildModel(t.spec), t.train);
  },
};

describe('malformed-input corpus (test/fixtures/bad/manifest.json)', () => {
  it('lists every fixture once and knows every reader', () => {
    const files = manifest.cases.map((c) => c.file);
    expect(new Set(files).size).toBe(files.length);
    for (const c of manifest.cases) {
      expect(c.reader === null || c.reader in READERS, `${c.file}: unknown reader ${c.reader}`).toBe(true);
      expect(['FormatError', 'InputError']).toContain(c.error);
    }
    expect(manifest.cases.length).toBeGreaterThanOrEqual(100);
  });

  describe.each(manifest.cases)('$format: $file', (c) => {
    const file = join(BAD, c.file);
    const named = c.where === undefined ? basename(c.file) : basename(c.where);

    if (c.reader !== null) it(`library (${c.reader}): ${c.libraryError === null ? 'no throw' : c.error}`, async () => {
      let err: unknown;
      try {
        await READERS[c.reader]!(file, c);
      } catch (e) {
        err = e;
      }
      if (c.libraryError === null) {
        expect(err).toBeUndefined();
        return;
      }
      expect(err, 'the reader accepted the file').toBeDefined();
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).name).toBe(c.error);
      expect((err as Error).message).toContain(c.message);
      if (c.error === 'FormatError') {
        expect(err).toBeInstanceOf(FormatError);
        // A FormatError names the broken file (its path, or the record inside it).
        expect((err as Error).message).toContain(named);
      }
      if (c.line !== undefined) expect((err as FormatError).line).toBe(c.line);
    });

    it(`CLI gapbcfw ${c.cli[0]}: exit 2 with a one-line reason`, async () => {
      const argv = c.cli.map((a) => fill(a, file));
      const r = await capture(main, argv);
      const lines = r.stderr.trim().split('\n');
      expect(r.code, r.stderr).toBe(2);
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^gapbcfw: /);
      expect(lines[0]).not.toMatch(/\n\s+at |Error:/);
      expect(lines[0]).toContain(c.message);
      if (c.error === 'FormatError') expect(lines[0]).toContain(named);
      if (c.line !== undefined) expect(lines[0]).toContain(`${named}:${c.line}: `);
    });
  });
});
