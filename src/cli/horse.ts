import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FormatError, InputError } from '../core/errors.js';
import { HorseDataset, loadWeizmannImage, mergeHorseParts, prepareHorse } from '../data/horse.js';
import { dataPath } from '../data/paths.js';
import { readModelFile, writeModelFile } from '../io/model-file.js';
import { makeOutputDir, writeOutput } from '../io/output.js';
import { horseOverlayPng } from '../plot/overlays.js';
import { loadModel } from '../io/model.js';
import { streamTotals } from '../data/horse-stream.js';
import { TRAIN_OPTIONS } from './train-options.js';
import { main } from './main.js';
import { SegmentationModel, segmentationLoss } from '../models/segmentation.js';
import { UsageError, integer, number, parse, positive, report, type Io } from './common.js';
import { formatSeconds } from './progress.js';

/**
 * `gapbcfw prepare-horse`, `gapbcfw train-horse` and `gapbcfw predict` for the HorseSeg-style
 * segmentation model (issue 6). Each runner returns the exit code (0 ok, 2 bad usage / bad input).
 */

export const PREPARE_HORSE_USAGE = `Usage: gapbcfw prepare-horse [DIR] --out OUTDIR [options]

Decodes the Weizmann Horse database (DIR with rgb/ and figure_ground/, or its parent; default the
shared data folder), computes SLIC superpixels, ground truth by mask majority, the adjacency graph
and HorseSeg-style features (1969 unary, 100 pairwise), and writes OUTDIR/horse.json + horse.bin
(format: src/data/horse.ts). Split: the first 147 images by name train, the rest test.

Options:
  --out DIR              output folder (required)
  --limit N              only the first N images
  --train-size N         training images (default 147)
  --superpixels K        SLIC superpixels per image (default 150)
  --compactness M        SLIC compactness (default 10)
  --colour-words C       colour codebook size (default 128)
  --gradient-words G     gradient codebook size (default 512; 0 = no gradient histograms)
  --seed N               codebook k-means seed (default 1)
  --augment N            N augmented copies (flip, crop, colour jitter) of each training image
                         (41: HorseSeg-medium's scale, 172: -large's); features of
                         augmented images cannot be shown by predict (no source image)
  --copies A-B           write only augmented copies A..B (default 1-N); with --part, parts of one
                         large set run in parallel (each copy is seeded by seed, copy, image)
  --no-originals         leave out the 328 original images (for the second and later parts)
  --part P               write OUTDIR/horse-P.bin + horse-P.json instead of horse.bin + horse.json
  --merge                join the parts OUTDIR/horse-*.json (name order) into OUTDIR/horse.json;
                         records stay in the part files (nothing is copied). Indices are rewritten
                         every 100 records while a prepare runs (marked incomplete): --merge
                         --allow-incomplete joins what interrupted or running parts have written
  --json, --quiet, --help

Parallel example (HorseSeg-large's scale on two cores):
  gapbcfw prepare-horse --out big --augment 172 --copies 1-86 --part a &
  gapbcfw prepare-horse --out big --augment 172 --copies 87-172 --no-originals --part b; wait
  gapbcfw prepare-horse --merge --out big`;

export const TRAIN_HORSE_USAGE = `Usage: gapbcfw train-horse horse:DIR [options]

The generic \`gapbcfw train horse:DIR\` (same options, same model file, same JSON summary) with the
segmentation defaults --lambda 100, --max-passes 50, --gap-threshold 0.01 and --train-error, and with
the oracle time per call in the summary: scoringMsPerCall (potentials and loss augmentation),
maxflowMsPerCall (graph cut) and, when streamed, readMsPerRecord, recordsRead and readMB (positional
reads of the records; cache hits and evaluations read records too); peakRssMB (the process's).
Pairwise (Potts) weights are kept >= 0 by the box-constrained solvers.

Out-of-core: a set whose records (train + test) exceed 1 GiB is read from disk per oracle call
(memory: the solver's per-block state, labels and areas; not the features). --stream forces it,
--in-memory forbids it (the same options as train, eval, gap and path take on horse:DIR).

Options: all of gapbcfw train (--solver, --sampling, --cache, --cache-size, --limit N, --out MODEL,
--trace, --checkpoint, --seed, --json, --quiet, ...), plus --stream | --in-memory.`;

export const PREDICT_USAGE = `Usage: gapbcfw predict MODEL horse:DIR --out-dir DIR [options]

Segments the images of a prepared folder with a model from train-horse, writes DIR/NAME.png (the
image with the predicted horse tinted red and its superpixel boundary in yellow, the ground-truth
outline in cyan) and prints the class-normalised
error ((FN/FG + FP/BG)/2, area-weighted, mean over images) against the superpixel ground truth and,
where the original masks can be read, against the pixel masks (pixelTestError) and the pixel accuracy.

Options: --part test|train|all (default test), --limit N, --no-images, --json, --quiet, --help`;

const MODEL_FORMAT = 'gapbcfw-segmentation-model';

const TRAIN_HORSE_OPTIONS = TRAIN_OPTIONS;
/** Flags of TRAIN_HORSE_OPTIONS that take a value (to tell the data argument from a flag's value). */
const TAKES_VALUE = new Set(Object.entries(TRAIN_HORSE_OPTIONS).flatMap(([k, o]) => (o.type === 'string' ? [`--${k}`] : [])));

function handle(e: unknown, io: Io): number {
  const code = (e as NodeJS.ErrnoException).code;
  if (e instanceof InputError || code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR') {
    io.stderr.write(`gapbcfw: ${(e as Error).message}\n`);
    return 2;
  }
  throw e;
}

function horseDir(spec: string | undefined, what: string): string {
  if (!spec) throw new UsageError(`missing ${what} (horse:DIR)`);
  return spec.startsWith('horse:') ? spec.slice(6) : spec;
}

export async function runPrepareHorse(args: string[], io: Io): Promise<number> {
  try {
    const { values: v, positionals } = parse(args, {
      out: { type: 'string' }, limit: { type: 'string' }, 'train-size': { type: 'string' }, superpixels: { type: 'string' },
      compactness: { type: 'string' }, 'colour-words': { type: 'string' }, 'gradient-words': { type: 'string' }, seed: { type: 'string' },
      augment: { type: 'string' }, copies: { type: 'string' }, 'no-originals': { type: 'boolean' }, part: { type: 'string' }, merge: { type: 'boolean' }, 'allow-incomplete': { type: 'boolean' },
      json: { type: 'boolean' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    });
    if (v.help) {
      io.stdout.write(`${PREPARE_HORSE_USAGE}\n`);
      return 0;
    }
    if (!v.out) throw new UsageError('prepare-horse needs --out DIR');
    if (v.merge) {
      if (positionals.length > 0 || v.part !== undefined) throw new UsageError('--merge takes only --out DIR');
      const meta = mergeHorseParts(v.out, undefined, !!v['allow-incomplete']);
      report({ command: 'prepare-horse', out: v.out, images: meta.images.length, train: meta.images.filter((i) => i.split === 'train').length, test: meta.images.filter((i) => i.split === 'test').length }, !!v.json, io, `merged ${new Set(meta.images.map((i) => i.file)).size} parts into ${v.out}/horse.json`);
      return 0;
    }
    let copies: [number, number] | undefined;
    if (v.copies !== undefined) {
      const m = /^(\d+)-(\d+)$/.exec(v.copies);
      if (!m) throw new UsageError(`--copies must be A-B (e.g. 1-86), got '${v.copies}'`);
      copies = [Number(m[1]), Number(m[2])];
    }
    if (positionals.length > 1) throw new UsageError(`prepare-horse takes one folder, got ${positionals.length}`);
    const root = positionals[0] ?? dataPath('weizmann_horse');
    const opt = <T>(x: T | undefined) => (x === undefined ? {} : x);
    const t0 = Date.now();
    let last = '';
    let stageName = '';
    let stageStart = { t: t0, done: 0 };
    const meta = await prepareHorse(root, v.out, {
      ...opt(v.limit === undefined ? undefined : { limit: number(v.limit, 'limit', integer(1), 'a positive integer')! }),
      ...opt(v['train-size'] === undefined ? undefined : { trainSize: number(v['train-size'], 'train-size', integer(0), 'an integer >= 0')! }),
      ...opt(v.superpixels === undefined ? undefined : { superpixels: number(v.superpixels, 'superpixels', integer(1), 'a positive integer')! }),
      ...opt(v.compactness === undefined ? undefined : { compactness: number(v.compactness, 'compactness', positive, 'a positive number')! }),
      ...opt(v['colour-words'] === undefined ? undefined : { colourWords: number(v['colour-words'], 'colour-words', integer(1), 'a positive integer')! }),
      ...opt(v['gradient-words'] === undefined ? undefined : { gradientWords: number(v['gradient-words'], 'gradient-words', integer(0), 'an integer >= 0')! }),
      ...opt(v.seed === undefined ? undefined : { seed: number(v.seed, 'seed', integer(0), 'an integer >= 0')! }),
      ...opt(v.augment === undefined ? undefined : { augment: number(v.augment, 'augment', integer(0), 'an integer >= 0')! }),
      ...opt(copies === undefined ? undefined : { copies }),
      ...opt(v['no-originals'] ? { originals: false } : undefined),
      ...opt(v.part === undefined ? undefined : { part: v.part }),
      onProgress: (stage, done, total) => {
        if (v.quiet) return;
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
    });
    const nodes = meta.images.map((i) => i.numNodes);
    report({
      command: 'prepare-horse', out: v.out, images: meta.images.length, train: meta.images.filter((i) => i.split === 'train').length,
      test: meta.images.filter((i) => i.split === 'test').length, dUnary: meta.dUnary, dPairwise: meta.dPairwise,
      meanSuperpixels: nodes.reduce((a, b) => a + b, 0) / nodes.length, seconds: (Date.now() - t0) / 1000,
    }, !!v.json, io, `prepared ${meta.images.length} images into ${v.out}`);
    return 0;
  } catch (e) {
    return handle(e, io);
  }
}

/** 75 -> "75 s", 3720 -> "1 h 2 min". */

/** Writes a segmentation model file (generic model-file container, format 'gapbcfw-segmentation-model'). */
export function saveSegmentationModel(path: string, m: { dUnary: number; dPairwise: number; w: Float64Array; lambda: number; training: Record<string, unknown> }): void {
  writeModelFile(path, { meta: { format: MODEL_FORMAT, dUnary: m.dUnary, dPairwise: m.dPairwise, lambda: m.lambda, training: m.training }, arrays: { w: m.w } });
}

export function loadSegmentationModel(path: string): { dUnary: number; dPairwise: number; w: Float64Array; lambda: number } {
  const { meta, arrays } = readModelFile(path);
  if (meta.format === 'gapbcfw-model') {
    // A model from gapbcfw train / train-horse (src/io/model.ts).
    const m = loadModel(path);
    if (m.spec.kind !== 'segmentation') throw new InputError(`${path} is a ${m.spec.kind} model, not a segmentation model`);
    return { dUnary: m.spec.numFeatures, dPairwise: m.spec.dPairwise, w: m.w, lambda: m.lambda };
  }
  if (meta.format !== MODEL_FORMAT) throw new FormatError(`not a segmentation model (format '${String(meta.format)}')`, path);
  const dUnary = meta.dUnary as number;
  const dPairwise = meta.dPairwise as number;
  const w = arrays.w;
  if (!(w instanceof Float64Array) || w.length !== dUnary + dPairwise) throw new FormatError(`w must be f64 of length dUnary + dPairwise = ${dUnary + dPairwise}`, path);
  return { dUnary, dPairwise, w, lambda: meta.lambda as number };
}

export async function runTrainHorse(args: string[], io: Io): Promise<number> {
  let dir: string;
  let v: ReturnType<typeof parse<typeof TRAIN_HORSE_OPTIONS>>['values'];
  try {
    const parsed = parse(args, TRAIN_HORSE_OPTIONS);
    v = parsed.values;
    if (v.help) {
      io.stdout.write(`${TRAIN_HORSE_USAGE}\n`);
      return 0;
    }
    if (parsed.positionals.length !== 1) throw new UsageError('train-horse takes one prepared folder, horse:DIR');
    dir = horseDir(parsed.positionals[0], 'the data');
    if (v.stream && v['in-memory']) throw new UsageError('--stream and --in-memory contradict each other');
    if (v.test !== undefined || v.split !== undefined) throw new UsageError('train-horse uses the folder\'s own train/test split (--test and --split do not apply)');
  } catch (e) {
    return handle(e, io);
  }
  // One implementation: the generic `gapbcfw train horse:DIR` with this command's defaults.
  const positional = args.find((a, k) => !a.startsWith('-') && (k === 0 || !TAKES_VALUE.has(args[k - 1]!)));
  const argv = ['train', `horse:${dir}`, ...args.filter((a) => a !== positional)];
  if (v.lambda === undefined) argv.push('--lambda', '100');
  if (v['max-passes'] === undefined) argv.push('--max-passes', '50');
  if (v['gap-threshold'] === undefined) argv.push('--gap-threshold', '0.01');
  if (!v['train-error']) argv.push('--train-error');
  const before = { ...SegmentationModel.totals };
  const readBefore = { ...streamTotals };
  let out = '';
  const captured = { write: (chunk: string | Uint8Array) => ((out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString()), true) } as unknown as NodeJS.WriteStream;
  // A static import of main.js (a cycle: main.ts imports this module; fine, `main` is only called here).
  // A dynamic import would wait for main.ts's top-level await, which is waiting for us.
  const code = await main(argv, { stdout: captured, stderr: io.stderr });
  const t = SegmentationModel.totals;
  const calls = t.calls - before.calls;
  const reads = streamTotals.reads - readBefore.reads;
  const timing: Record<string, number | undefined> = {
    decodeCalls: calls,
    scoringMsPerCall: calls > 0 ? (t.scoringMs - before.scoringMs) / calls : undefined,
    maxflowMsPerCall: calls > 0 ? (t.maxflowMs - before.maxflowMs) / calls : undefined,
    readMsPerRecord: reads > 0 ? (streamTotals.ms - readBefore.ms) / reads : undefined,
    recordsRead: reads > 0 ? reads : undefined,
    readMB: reads > 0 ? (streamTotals.bytes - readBefore.bytes) / 2 ** 20 : undefined,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
  };
  const lines = out.replace(/\n$/, '').split('\n');
  if (code === 0 && v.json) {
    const summary = JSON.parse(lines.pop()!) as Record<string, unknown>;
    lines.push(JSON.stringify({ ...summary, command: 'train-horse', ...Object.fromEntries(Object.entries(timing).filter(([, x]) => x !== undefined)) }));
  } else if (code === 0) {
    for (const [k, x] of Object.entries(timing)) if (x !== undefined) lines.push(`  ${k}: ${+x.toPrecision(6)}`);
  }
  if (out !== '') io.stdout.write(`${lines.join('\n')}\n`);
  return code;
}

export async function runPredict(args: string[], io: Io): Promise<number> {
  try {
    const { values: v, positionals } = parse(args, {
      'out-dir': { type: 'string' }, part: { type: 'string' }, limit: { type: 'string' }, 'no-images': { type: 'boolean' },
      json: { type: 'boolean' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    });
    if (v.help) {
      io.stdout.write(`${PREDICT_USAGE}\n`);
      return 0;
    }
    if (positionals.length !== 2) throw new UsageError('predict needs MODEL and horse:DIR');
    const part = v.part ?? 'test';
    if (part !== 'test' && part !== 'train' && part !== 'all') throw new UsageError(`--part must be test, train or all, got '${part}'`);
    const images = !v['no-images'];
    if (images && !v['out-dir']) throw new UsageError('predict needs --out-dir DIR (or --no-images)');
    const saved = loadSegmentationModel(positionals[0]!);
    const ds = new HorseDataset(horseDir(positionals[1], 'the data'));
    if (saved.dUnary !== ds.meta.dUnary || saved.dPairwise !== ds.meta.dPairwise) throw new InputError(`the model has ${saved.dUnary}+${saved.dPairwise} features, the data ${ds.meta.dUnary}+${ds.meta.dPairwise}`);
    const model = new SegmentationModel({ dUnary: saved.dUnary, dPairwise: saved.dPairwise });
    const limit = number(v.limit, 'limit', integer(1), 'a positive integer') ?? Infinity;
    if (images) makeOutputDir(v['out-dir']!, '--out-dir');
    const source = ds.meta.source;
    let err = 0;
    let correct = 0;
    let pixels = 0;
    let pixelErr = 0;
    let pixelImages = 0;
    let n = 0;
    for (const k of ds.indices(part).slice(0, limit)) {
      const rec = ds.read(k);
      const y = model.decode(saved.w, rec.graph);
      err += segmentationLoss(rec.labels, y, rec.graph.areas);
      n++;
      const file = source ? ['.jpg', '.jpeg', '.png'].map((e) => rec.name + e).find((f) => existsSync(join(source, 'rgb', f))) : undefined;
      if (file) {
        const im = await loadWeizmannImage(source!, file);
        if (im.height === rec.height && im.width === rec.width) {
          const c = [0, 0, 0, 0]; // [truth*2 + predicted] pixel counts
          for (let p = 0; p < im.mask!.length; p++) c[2 * im.mask![p]! + y[rec.superpixels[p]!]!]!++;
          correct += c[0]! + c[3]!;
          pixels += im.mask!.length;
          const fg = c[2]! + c[3]!;
          const bg = c[0]! + c[1]!;
          pixelErr += fg === 0 ? c[1]! / bg : bg === 0 ? c[2]! / fg : (c[2]! / fg + c[1]! / bg) / 2;
          pixelImages++;
          if (images) writeOutput(join(v['out-dir']!, `${rec.name}.png`), await horseOverlayPng(im.rgb, rec.height, rec.width, rec.superpixels, y, im.mask));
        }
      }
      if (!v.quiet && n % 25 === 0) io.stderr.write(`predict: ${n} images\n`);
    }
    if (n === 0) throw new InputError(`${ds.dir}: no ${part} images`);
    report({ command: 'predict', images: n, testError: err / n, pixelAccuracy: pixels > 0 ? correct / pixels : undefined, pixelTestError: pixelImages > 0 ? pixelErr / pixelImages : undefined, outDir: images ? v['out-dir'] : undefined }, !!v.json, io, `segmented ${n} images`);
    return 0;
  } catch (e) {
    return handle(e, io);
  }
}
