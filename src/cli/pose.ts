/**
 * `gapbcfw pose`: LSP pose estimation with the pictorial-structures model (src/models/pose.ts).
 *
 *   gapbcfw pose train lsp:DIR [--split small|full] [--lambda X] [--max-passes N] [--out MODEL.json] [--json]
 *   gapbcfw pose eval MODEL.json lsp:DIR [--test-limit N] [--json]
 *
 * Training: HOG grids (native) of the split's training images, mean displacements from their labels,
 * BCFW on the SSVM; then test PCP / PCK / loss of the model and of the mean-pose baseline, and the
 * oracle time per image (filter scoring and GDT messages separately).
 */
import { join } from 'node:path';
import { FormatError } from '../core/errors.js';
import { readModelFile, writeModelFile } from '../io/model-file.js';
import { makeOutputDir, writeOutput } from '../io/output.js';
import { poseSkeletonPng } from '../plot/overlays.js';
import { modelProblem } from '../core/problem.js';
import { labelToPixels, loadImage, loadLspJoints, lspExamples, lspImagePath, lspSplit, meanOffsets, type LspExample } from '../data/lsp.js';
import { LSP_TREE_PARENTS, MeanPose, pcpPck, type PoseMetrics } from '../models/pose-eval.js';
import { PoseModel, type PoseModelOptions } from '../models/pose.js';
import { train } from '../solvers/index.js';
import { UsageError, integer, nonNegative, number, parse, positive, report, solverSummary, type Io } from './common.js';

export const POSE_USAGE = `gapbcfw pose: LSP pose estimation (tree of 14 joints, HOG part filters, GDT max-sum oracle)

Usage:
  gapbcfw pose train lsp:DIR [options]     train on the split's training images, report test PCP/PCK
  gapbcfw pose eval MODEL lsp:DIR          PCP, PCK and loss of a saved model on the test images
  gapbcfw pose predict MODEL lsp:DIR --out-dir DIR
                                           the predicted skeleton (green; ground truth thin white) over
                                           each test image as DIR/imNNNN.png

Options:
  --split small|full   training images: the first 100 (LSP-small, default) or the first 1000; test = last 1000
  --test-limit N       evaluate on the first N test images only (default all 1000)
  --lambda X           regularization (default 0.01)
  --max-passes N       BCFW passes (default 30)
  --gap-threshold X    stop when the exact duality gap is below X (default 0.001)
  --sbin N             HOG cell size in pixels (default 4)
  --filter-size K      part filter side in cells, odd (default 5)
  --def-scale S        displacement normaliser in cells (default 4)
  --seed N             solver seed (default 1)
  --out FILE           save the model (a gapbcfw model file: settings header + w)
  --json               last stdout line is one JSON object`;

const OPTIONS = {
  split: { type: 'string' },
  'test-limit': { type: 'string' },
  lambda: { type: 'string' },
  'max-passes': { type: 'string' },
  'gap-threshold': { type: 'string' },
  sbin: { type: 'string' },
  'filter-size': { type: 'string' },
  'def-scale': { type: 'string' },
  seed: { type: 'string' },
  out: { type: 'string' },
  'out-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The header of a pose model file (the weights are its array 'w'). */
interface SavedPoseModel {
  format: 'gapbcfw-pose';
  version: 1;
  sbin: number;
  scale: number;
  options: PoseModelOptions;
}

function lspDir(spec: string | undefined): string {
  if (spec === undefined || !spec.startsWith('lsp:') || spec.length <= 4) throw new UsageError(`expected a data set lsp:DIR, got '${spec ?? ''}'`);
  return spec.slice(4);
}

/** Test metrics of a model and of the mean-pose baseline, with oracle timing per image. */
export function evaluatePose(model: PoseModel, w: Float64Array, trainSet: readonly LspExample[], testSet: readonly LspExample[]): { model: PoseMetrics; meanPose: PoseMetrics; decodeMsPerImage: number; scoringMsPerImage: number; messagesMsPerImage: number } {
  const t = { ...model.timing };
  const preds = testSet.map((e) => labelToPixels(model.decode(w, e.input), e.sbin, e.scale));
  const calls = model.timing.calls - t.calls;
  const scoring = (model.timing.scoringMs - t.scoringMs) / calls;
  const messages = (model.timing.messagesMs - t.messagesMs) / calls;
  const truth = testSet.map((e) => e.annotation);
  const mean = new MeanPose(trainSet.map((e) => e.annotation), trainSet);
  return {
    model: pcpPck(preds, truth),
    meanPose: pcpPck(testSet.map((e) => mean.predict(e)), truth),
    decodeMsPerImage: scoring + messages,
    scoringMsPerImage: scoring,
    messagesMsPerImage: messages,
  };
}

/** Runs `gapbcfw pose ...`; returns the exit code. */
export async function runPose(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h') {
    io.stdout.write(`${POSE_USAGE}\n`);
    return 0;
  }
  const { values, positionals } = parse(rest, OPTIONS);
  if (values.help) {
    io.stdout.write(`${POSE_USAGE}\n`);
    return 0;
  }
  const testLimit = number(values['test-limit'], 'test-limit', integer(1), 'a positive integer') ?? 1000;
  const json = values.json === true;
  const log = (s: string) => io.stderr.write(`${s}\n`);
  if (sub === 'train') {
    if (positionals.length !== 1) throw new UsageError('pose train takes one data set lsp:DIR');
    const dir = lspDir(positionals[0]);
    const split = values.split ?? 'small';
    if (split !== 'small' && split !== 'full') throw new UsageError(`--split must be small or full, got '${split}'`);
    const lambda = number(values.lambda, 'lambda', positive, 'a positive number') ?? 0.01;
    const maxPasses = number(values['max-passes'], 'max-passes', integer(1), 'a positive integer') ?? 30;
    const gapThreshold = number(values['gap-threshold'], 'gap-threshold', nonNegative, 'a non-negative number') ?? 1e-3;
    const sbin = number(values.sbin, 'sbin', integer(1), 'a positive integer') ?? 4;
    const filterSize = number(values['filter-size'], 'filter-size', (x) => Number.isInteger(x) && x >= 1 && x % 2 === 1, 'an odd positive integer') ?? 5;
    const defScale = number(values['def-scale'], 'def-scale', positive, 'a positive number') ?? 4;
    const seed = number(values.seed, 'seed', integer(0), 'a non-negative integer') ?? 1;
    const ann = loadLspJoints(dir);
    const { train: trIdx, test: teIdx } = lspSplit(ann.length, split);
    const t0 = performance.now();
    const trainSet = await lspExamples(dir, ann, trIdx, { sbin });
    const testSet = await lspExamples(dir, ann, teIdx.slice(0, testLimit), { sbin });
    const featureSeconds = (performance.now() - t0) / 1000;
    log(`features: ${trainSet.length} train + ${testSet.length} test images in ${featureSeconds.toFixed(1)} s`);
    const options: PoseModelOptions = { parents: LSP_TREE_PARENTS, meanOffsets: meanOffsets(trainSet.map((e) => e.label), LSP_TREE_PARENTS), filterSize, defScale };
    const model = new PoseModel(options);
    const problem = modelProblem(model, trainSet.map((e) => e.input), trainSet.map((e) => e.label));
    const result = train(problem, {
      lambda,
      maxPasses,
      gapThreshold,
      seed,
      onProgress: (e) => {
        if (e.gapIsExact && e.gap !== undefined) log(`pass ${e.pass}: exact gap ${e.gap.toExponential(3)}, primal ${e.primal?.toExponential(3)}, ${e.seconds.toFixed(1)} s`);
      },
    });
    const trainOracleMs = (model.timing.scoringMs + model.timing.messagesMs) / model.timing.calls;
    const quad = model.quadraticIndices().map((j) => result.w[j]!);
    const ev = evaluatePose(model, result.w, trainSet, testSet);
    if (values.out !== undefined) {
      // The package's model-file container: versioned JSON header, little-endian weights, CRC-32.
      writeModelFile(values.out, { meta: { format: 'gapbcfw-pose', version: 1, sbin, scale: 1, options: { ...options } }, arrays: { w: result.w } });
    }
    report(
      {
        command: 'pose train',
        split,
        trainImages: trainSet.length,
        testImages: testSet.length,
        dim: model.dim,
        lambda,
        ...solverSummary(result),
        trainError: result.trainError,
        oracleMsPerImage: trainOracleMs,
        decodeMsPerImage: ev.decodeMsPerImage,
        scoringMsPerImage: ev.scoringMsPerImage,
        messagesMsPerImage: ev.messagesMsPerImage,
        minQuadraticCoefficient: Math.min(...quad),
        testLoss: ev.model.loss,
        pcp: ev.model.pcp,
        pck: ev.model.pck,
        meanPosePcp: ev.meanPose.pcp,
        meanPosePck: ev.meanPose.pck,
        meanPoseLoss: ev.meanPose.loss,
        featureSeconds,
      },
      json,
      io,
      'LSP pose model trained',
    );
    return 0;
  }
  if (sub === 'eval' || sub === 'predict') {
    if (positionals.length !== 2) throw new UsageError(`pose ${sub} takes MODEL lsp:DIR`);
    const file = positionals[0]!;
    const dir = lspDir(positionals[1]);
    const outDir = values['out-dir'];
    if (sub === 'predict' && outDir === undefined) throw new UsageError('pose predict needs --out-dir DIR');
    const { saved, model, w } = loadPoseModel(file);
    const ann = loadLspJoints(dir);
    const { train: trIdx, test: teIdx } = lspSplit(ann.length, 'full');
    const testIdx = teIdx.slice(0, testLimit);
    const testSet = await lspExamples(dir, ann, testIdx, { sbin: saved.sbin, scale: saved.scale });
    if (sub === 'predict') {
      makeOutputDir(outDir!, '--out-dir');
      for (let k = 0; k < testSet.length; k++) {
        const ex = testSet[k]!;
        const pred = labelToPixels(model.decode(w, ex.input), saved.sbin, saved.scale);
        const img = await loadImage(lspImagePath(dir, testIdx[k]!));
        writeOutput(join(outDir!, `im${String(testIdx[k]! + 1).padStart(4, '0')}.png`), await poseSkeletonPng(img, pred, ex.annotation));
      }
      report({ command: 'pose predict', images: testSet.length, outDir }, json, io, `wrote ${testSet.length} overlays to ${outDir}`);
      return 0;
    }
    const trainSet = await lspExamples(dir, ann, trIdx, { sbin: saved.sbin, scale: saved.scale });
    const ev = evaluatePose(model, w, trainSet, testSet);
    report({ command: 'pose eval', testImages: testSet.length, testLoss: ev.model.loss, pcp: ev.model.pcp, pck: ev.model.pck, meanPosePcp: ev.meanPose.pcp, meanPosePck: ev.meanPose.pck, decodeMsPerImage: ev.decodeMsPerImage }, json, io, 'LSP pose model evaluated');
    return 0;
  }
  throw new UsageError(`unknown pose command '${sub}' (train | eval | predict)`);
}

/** Reads a model written by `pose train --out` (a model file with a pose header) and checks it. */
function loadPoseModel(file: string): { saved: SavedPoseModel; model: PoseModel; w: Float64Array } {
  const { meta, arrays } = readModelFile(file);
  const saved = meta as unknown as SavedPoseModel;
  if (saved.format !== 'gapbcfw-pose' || saved.version !== 1) throw new FormatError('not a gapbcfw pose model (format/version)', file);
  const model = new PoseModel(saved.options);
  const w = arrays.w;
  if (!(w instanceof Float64Array) || w.length !== model.dim) throw new FormatError(`w must be ${model.dim} doubles`, file);
  return { saved, model, w };
}
