/**
 * `gapbcfw prepare-horse [DIR] --out OUTDIR`: the Weizmann horses as superpixel graphs with HorseSeg-style features,
 * written as a `horse:DIR` folder (format: docs/horse-format.md), in one run or in parallel parts.
 * @module
 */
import { dataPath } from '../data/paths.js';
import { makeOutputDir } from '../io/output.js';
import { horseRecordsFile, mergeHorseParts, prepareHorse, type HorseMeta, type PrepareHorseOptions } from '../data/horse.js';
import { SEED_MAX } from '../solvers/settings.js';
import { REPORT_OPTIONS } from './options.js';
import { positional, value, type Args, type Command } from './args.js';
import { UsageError, report, type Io } from './common.js';
import { formatSeconds } from './progress.js';
import { checkCommandOutputs, holdLock, withInterrupts } from './session.js';

const features = 'Features';
const parts = 'Large sets in parallel parts';
export const prepareHorseCommand: Command = {
  name: 'prepare-horse',
  summary: 'Weizmann horses -> SLIC superpixels, HorseSeg-style features, an on-disk horse:DIR set',
  description:
    'Decodes the Weizmann Horse database (DIR with rgb/ and figure_ground/, or its parent; default the shared data folder),\n' +
    'computes SLIC superpixels, ground truth by mask majority, the adjacency graph and HorseSeg-style features (1969 unary,\n' +
    '100 pairwise), and writes OUTDIR/horse.json + horse.bin (format: docs/horse-format.md). Split: the first 147 images by\n' +
    'name train, the rest test. SIGINT, SIGTERM and SIGHUP stop after the current image; the index then lists the records\n' +
    'written so far, marked incomplete (--merge --allow-incomplete reads it).\n' +
    'Parallel example (HorseSeg-large\'s scale on two cores):\n' +
    '  gapbcfw prepare-horse --out big --augment 172 --copies 1-86 --part a &\n' +
    '  gapbcfw prepare-horse --out big --augment 172 --copies 87-172 --no-originals --part b; wait\n' +
    '  gapbcfw prepare-horse --merge --out big',
  positionals: [{ name: 'DIR', help: 'the Weizmann database folder (default: the shared data folder)', input: 'file', optional: true }],
  options: [
    { name: 'out', type: 'string', value: 'OUTDIR', short: 'o', output: 'dir', lock: false, help: 'output folder (required)' },
    { name: 'limit', type: 'integer', value: 'N', min: 1, max: 1e9, help: 'only the first N images', group: features },
    { name: 'train-size', type: 'integer', value: 'N', min: 0, max: 1e9, help: 'training images', default: '147', group: features },
    { name: 'superpixels', type: 'integer', value: 'K', min: 1, max: 1e6, help: 'SLIC superpixels per image', default: '150', group: features },
    { name: 'compactness', type: 'number', value: 'M', min: 0, minExclusive: true, max: 1e6, help: 'SLIC compactness', default: '10', group: features },
    { name: 'colour-words', type: 'integer', value: 'C', min: 1, max: 1e6, help: 'colour codebook size', default: '128', group: features },
    { name: 'gradient-words', type: 'integer', value: 'G', min: 0, max: 1e6, help: 'gradient codebook size (0: no gradient histograms)', default: '512', group: features },
    { name: 'seed', type: 'integer', value: 'N', min: 0, max: SEED_MAX, help: 'codebook k-means and augmentation seed', default: '1', group: features },
    { name: 'augment', type: 'integer', value: 'N', min: 0, max: 1e6, help: "augmented copies (flip, crop, colour jitter) of each training image (41: HorseSeg-medium's scale, 172: -large's)", default: '0', group: features },
    { name: 'copies', type: 'string', value: 'A-B', help: 'write only augmented copies A..B (each copy is seeded by seed, copy, image)', default: '1-N', group: parts },
    { name: 'no-originals', type: 'flag', help: 'leave out the original images (for the second and later parts)', group: parts },
    { name: 'part', type: 'string', value: 'P', help: 'write OUTDIR/horse-P.bin + horse-P.json instead of horse.bin + horse.json', group: parts },
    { name: 'merge', type: 'flag', help: 'join the parts OUTDIR/horse-*.json (name order) into OUTDIR/horse.json (records stay in the part files)', group: parts },
    { name: 'allow-incomplete', type: 'flag', help: 'with --merge: join what interrupted or running parts have written', group: parts },
    ...REPORT_OPTIONS,
  ],
  run: runPrepareHorse,
};

async function runPrepareHorse(a: Args, io: Io): Promise<number> {
  const out = value.string(a, 'out');
  if (out === undefined) throw new UsageError('prepare-horse needs --out DIR');
  const json = value.flag(a, 'json');
  const split = (m: HorseMeta) => ({ images: m.images.length, train: m.images.filter((i) => i.split === 'train').length, test: m.images.filter((i) => i.split === 'test').length });
  if (value.flag(a, 'merge')) {
    const other = [...a.given].find((f) => !['merge', 'out', 'allow-incomplete', 'json', 'quiet'].includes(f));
    if (a.positionals.length > 0 || other !== undefined) throw new UsageError(`--merge takes only --out DIR and --allow-incomplete${other === undefined ? '' : `, not --${other}`}`);
    holdLock(out, `--out ${out}`);
    const meta = mergeHorseParts(out, undefined, value.flag(a, 'allow-incomplete'));
    report({ command: 'prepare-horse', out, ...split(meta) }, json, io, `merged ${new Set(meta.images.map((i) => i.file)).size} parts into ${out}/horse.json`);
    return 0;
  }
  if (a.given.has('allow-incomplete')) throw new UsageError('--allow-incomplete applies to --merge');
  let copies: [number, number] | undefined;
  const copiesValue = value.string(a, 'copies');
  if (copiesValue !== undefined) {
    const m = /^(\d+)-(\d+)$/.exec(copiesValue);
    if (!m) throw new UsageError(`--copies must be A-B (e.g. 1-86), got '${copiesValue}'`);
    copies = [Number(m[1]), Number(m[2])];
  }
  checkCommandOutputs(a, io);
  // One writer per set: a whole set locks its folder (it replaces it), a part its own file in the folder it shares.
  const part = value.string(a, 'part');
  if (part !== undefined) makeOutputDir(out, '--out');
  holdLock(part === undefined ? out : horseRecordsFile(out, part), `--out ${out}${part === undefined ? '' : ` --part ${part}`}`);
  const root = a.positionals.length > 0 ? positional(a, 0) : dataPath('weizmann_horse');
  const t0 = Date.now();
  let last = '';
  let stageName = '';
  let stageStart = { t: t0, done: 0 };
  const options: PrepareHorseOptions = {
    limit: value.number(a, 'limit'),
    trainSize: value.number(a, 'train-size'),
    superpixels: value.number(a, 'superpixels'),
    compactness: value.number(a, 'compactness'),
    colourWords: value.number(a, 'colour-words'),
    gradientWords: value.number(a, 'gradient-words'),
    seed: value.number(a, 'seed'),
    augment: value.number(a, 'augment'),
    copies,
    originals: value.flag(a, 'no-originals') ? false : undefined,
    part: value.string(a, 'part'),
    onProgress: (stage, done, total) => {
      if (value.flag(a, 'quiet')) return;
      const line = `${stage} ${done}/${total}`;
      if (stage !== stageName) {
        stageName = stage;
        stageStart = { t: Date.now(), done };
      }
      if (line !== last && (done === total || done % 25 === 0)) {
        const now = Date.now();
        const rate = (done - stageStart.done) / Math.max(now - stageStart.t, 1);
        const eta = done < total && rate > 0 ? `, ETA ${formatSeconds((total - done) / rate / 1000)}` : '';
        io.stderr.write(`prepare-horse: ${line} (${((now - t0) / 1000).toFixed(1)} s${eta})\n`);
      }
      last = line;
    },
  };
  for (const k of Object.keys(options) as (keyof PrepareHorseOptions)[]) if (options[k] === undefined) delete options[k];
  let meta: HorseMeta | undefined;
  const code = await withInterrupts(io, 'finishing the current image and writing the index of the records so far', async (signal) => {
    meta = await prepareHorse(root, out, { ...options, signal });
    return 0;
  });
  const m = meta!;
  const nodes = m.images.map((i) => i.numNodes);
  report(
    {
      command: 'prepare-horse', out, ...split(m), complete: m.incomplete ? false : undefined, dUnary: m.dUnary, dPairwise: m.dPairwise,
      meanSuperpixels: nodes.length > 0 ? nodes.reduce((x, y) => x + y, 0) / nodes.length : undefined, seconds: (Date.now() - t0) / 1000,
    },
    json, io, `prepared ${m.images.length} images into ${out}${m.incomplete ? ' (interrupted: the index is marked incomplete)' : ''}`,
  );
  return code;
}
