/**
 * `gapbcfw align`: word alignment as bipartite matching (src/models/matching.ts).
 *
 *   gapbcfw align train alignment:DIR [--folds 5] [--fold K | --all] [solver options] [--out MODEL]
 *   gapbcfw align eval MODEL alignment:DIR [--fold K] [--folds 5]
 *   gapbcfw align MODEL [PAIRS | -]         (PAIRS: 'english tokens ||| french tokens' per line; stdin by default)
 *
 * An alignment model file holds w, the loss settings and the parallel text its Dice statistics were
 * counted from (unlabelled sample + training sentences), so `align` computes the same features on new pairs.
 */
import { readFileSync } from 'node:fs';
import { writeOutput } from '../io/output.js';
import type { ParseArgsConfig } from 'node:util';
import { InputError } from '../core/errors.js';
import { meanLoss, modelProblem } from '../core/problem.js';
import {
  evaluateAlignments,
  foldSplit,
  foldStats,
  matchingData,
  parseParallelPairs,
  readHansards,
  readParallelSample,
  tunedBaseline,
  type AlignedPair,
} from '../data/alignment.js';
import {
  Aligner,
  AlignmentFeaturizer,
  MatchingModel,
  diceBaseline,
  loadAlignmentModel,
  saveAlignmentModel,
  type LossNormaliser,
} from '../models/matching.js';
import type { BcfwResult } from '../solvers/bcfw.js';
import type { SolverResult } from '../solvers/common.js';
import { trainAsync, type TrainOptions } from '../solvers/index.js';
import { UsageError, integer, nonNegative, number, parse, report, reportFailure, type Io } from './common.js';
import { ProgressPrinter, describeEvent } from './progress.js';
import { SOLVER_OPTIONS, trainOptions, type TrainValues } from './train-options.js';

export const ALIGN_USAGE = `gapbcfw align: word alignment as bipartite matching (Hungarian oracle, asymmetric Hamming loss, AER)

Usage:
  gapbcfw align train alignment:DIR [options]   train on the Hansards gold pairs of DIR (word_alignment_hansards/)
  gapbcfw align eval MODEL alignment:DIR        AER, precision and recall of a model on a fold
  gapbcfw align MODEL [PAIRS | -]               align new pairs ('english tokens ||| french tokens' per line,
                                                stdin when PAIRS is absent or -); prints one line per pair

Train options:
  --folds F            cross-validation folds over the 484 labelled pairs (default 5, contiguous)
  --fold K             held-out fold, 0..F-1 (default 0): trained on the others, AER reported on it
  --all                train on all 484 pairs (no held-out AER)
  --cost-fp X          loss of a proposed link outside the target matching (default 1)
  --cost-fn X          loss of a missed target link (default 3)
  --normaliser N       links (default: divide by the number of target links) | rows | none
  --no-sample          do not count Dice statistics over the unlabelled sample (training sentences only)
  --lambda X, --solver bcfw|bcpfw|bcafw|hybrid|fw|ssg, --sampling uniform|perm|gap, --cache
  (--cache-size N, --cache-f X, --cache-nu X), --averaging, --no-averaging, --no-line-search,
  --gap-threshold X (default 0.01), --gap-check N, --max-passes N (default 100), --time-budget S, --seed N,
  --out MODEL, --trace FILE.jsonl, --quiet, --json
Eval options: --folds F, --fold K (default: the model's held-out fold), --json
Align options: --order ef|fe (default ef: 'j-k' = English word j, French word k; fe = the NAACL files' order),
  --words (print 'english=french' word pairs instead of indices), --json

Exit codes: 0 success, 1 the job failed, 2 bad usage or bad input.`;

const TRAIN_OPTIONS = {
  folds: { type: 'string' },
  fold: { type: 'string' },
  all: { type: 'boolean' },
  'cost-fp': { type: 'string' },
  'cost-fn': { type: 'string' },
  normaliser: { type: 'string' },
  'no-sample': { type: 'boolean' },
  ...SOLVER_OPTIONS,
  out: { type: 'string' },
  trace: { type: 'string' },
  quiet: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

const EVAL_OPTIONS = {
  folds: { type: 'string' },
  fold: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

const PREDICT_OPTIONS = {
  order: { type: 'string' },
  words: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

// -------------------------------------------------------------------------------------------------
// Commands

type AlignTrainValues = ReturnType<typeof parse<typeof TRAIN_OPTIONS>>['values'];

/** Solver options from the flags: the shared translation of `gapbcfw train` (train-options.ts), max 100 passes by default. */
function solverOptions(v: AlignTrainValues): TrainOptions {
  // The align flags hold every solver flag of the shared set; the others (backend, split, ...) stay undefined.
  const o = trainOptions(v as unknown as TrainValues, { gapThreshold: 0.01 });
  o.maxPasses ??= 100;
  return o;
}

/** `alignment:DIR` or a plain DIR. */
function dataDir(spec: string): string {
  if (spec.startsWith('alignment:')) spec = spec.slice('alignment:'.length);
  else if (/^[a-z]+:/.test(spec) && !spec.includes('/')) throw new UsageError(`align reads alignment:DIR data, got '${spec}'`);
  if (spec === '') throw new UsageError('alignment data needs a folder: alignment:DIR');
  return spec;
}

function foldOf(v: { folds?: string; fold?: string }, fallback?: { folds: number; fold: number }): { folds: number; fold: number } {
  const folds = number(v.folds, 'folds', integer(2), 'an integer >= 2') ?? fallback?.folds ?? 5;
  const fold = number(v.fold, 'fold', integer(0), 'a non-negative integer') ?? (fallback && fallback.folds === folds ? fallback.fold : 0);
  if (fold >= folds) throw new UsageError(`--fold must be in 0..${folds - 1}, got ${fold}`);
  return { folds, fold };
}

async function runAlignTrain(args: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parse(args, TRAIN_OPTIONS);
  if (v.help) return usage(io);
  if (positionals.length !== 1) throw new UsageError('align train takes one data folder, e.g. gapbcfw align train alignment:../shared/data/word_alignment_hansards --fold 0');
  if (v.all && (v.fold !== undefined || v.folds !== undefined)) throw new UsageError('--all trains on every pair: --fold and --folds do not apply');
  const normaliser = (v.normaliser ?? 'links') as LossNormaliser;
  if (!['links', 'rows', 'none'].includes(normaliser)) throw new UsageError(`--normaliser must be links, rows or none, got '${normaliser}'`);
  const costFalsePositive = number(v['cost-fp'], 'cost-fp', nonNegative, 'a number >= 0') ?? 1;
  const costFalseNegative = number(v['cost-fn'], 'cost-fn', nonNegative, 'a number >= 0') ?? 3;
  const options = solverOptions(v);
  const dir = dataDir(positionals[0]!);
  const pairs = readHansards(dir);
  const sample = v['no-sample'] ? [] : readParallelSample(dir);
  const heldOut = v.all ? undefined : foldOf(v);
  const split = heldOut ? foldSplit(pairs, heldOut.folds, heldOut.fold) : { train: pairs, test: [] as AlignedPair[] };
  const stats = foldStats(sample, split.train);
  const featurizer = new AlignmentFeaturizer(stats);
  const train = matchingData(split.train, featurizer);
  const test = split.test.length > 0 ? matchingData(split.test, featurizer) : undefined;
  const model = new MatchingModel({ numFeatures: featurizer.numFeatures, costFalsePositive, costFalseNegative, normaliser });
  const problem = modelProblem(model, train.xs, train.ys);
  if (test) {
    options.evaluate = (w) => ({
      testError: meanLoss(model, w, test.xs, test.ys),
      aer: evaluateAlignments(split.test, (_, i) => model.decode(w, test.xs[i]!)).aer,
    });
  }
  const description = `hansards alignment${heldOut ? ` (fold ${heldOut.fold} of ${heldOut.folds} held out)` : ' (all pairs)'}: ${split.train.length} train / ${split.test.length} test pairs, Dice over ${stats.numSentences} sentence pairs, d = ${problem.dim}`;
  const printer = new ProgressPrinter(io.stderr, options.maxPasses ?? 100, v.quiet ?? false);
  if (!v.quiet) io.stderr.write(`${description}\n`);
  const trace: string[] = [];
  options.onProgress = (e) => {
    printer.onProgress(e);
    if (v.trace !== undefined) trace.push(JSON.stringify(e));
  };
  const controller = new AbortController();
  options.signal = controller.signal;
  const onSigint = () => controller.abort();
  process.on('SIGINT', onSigint);
  let result: SolverResult;
  try {
    result = await trainAsync(problem, options);
  } finally {
    process.off('SIGINT', onSigint);
    printer.finish();
  }
  if (v.trace !== undefined) writeOutput(v.trace, trace.length > 0 ? `${trace.join('\n')}\n` : '', { stdout: io.stdout });
  const metrics: Record<string, number> = {};
  if (test) {
    const t0 = performance.now();
    Object.assign(metrics, evaluateAlignments(split.test, (_, i) => model.decode(result.w, test.xs[i]!)));
    metrics.testError = meanLoss(model, result.w, test.xs, test.ys);
    metrics.decodeSecondsPerPair = (performance.now() - t0) / 1000 / split.test.length;
    const base = tunedBaseline(stats, split.train);
    const b = evaluateAlignments(split.test, (p) => diceBaseline(stats, p.e, p.f, base.threshold));
    metrics.baselineAer = b.aer;
    metrics.baselinePrecision = b.precision;
    metrics.baselineRecall = b.recall;
    metrics.baselineThreshold = base.threshold;
  }
  const trainAer = evaluateAlignments(split.train, (_, i) => model.decode(result.w, train.xs[i]!)).aer;
  const { evaluate: _e, onProgress: _p, signal: _s, ...settings } = options as Record<string, unknown>;
  if (v.out !== undefined) {
    saveAlignmentModel(v.out, {
      w: result.w,
      lambda: result.lambda,
      costFalsePositive,
      costFalseNegative,
      normaliser,
      corpus: [...sample, ...split.train.map((p) => [p.e, p.f] as [string[], string[]])],
      training: { ...settings, solver: v.solver ?? 'bcfw', passes: result.passes, stopReason: result.stopReason },
      heldOut,
      metrics,
    });
  }
  const summary = {
    command: 'align train',
    solver: v.solver ?? 'bcfw',
    lambda: result.lambda,
    folds: heldOut?.folds,
    fold: heldOut?.fold,
    n: problem.n,
    nTest: split.test.length,
    dim: problem.dim,
    passes: result.passes,
    effectivePasses: result.effectivePasses,
    oracleCalls: result.oracleCalls,
    ...('counters' in result ? { cacheHits: (result as BcfwResult).counters.cacheHits } : {}),
    seconds: result.seconds,
    primal: result.primal,
    dual: result.dual,
    gap: result.gap,
    gapIsExact: result.gapIsExact,
    trainAer,
    ...metrics,
    stopReason: result.stopReason,
    model: v.out,
  };
  report(summary, v.json ?? false, io, `${v.solver ?? 'bcfw'} stopped (${result.stopReason}) after ${describeEvent(result.trace.at(-1)!)}`);
  return result.stopReason === 'aborted' ? 130 : 0;
}

async function runAlignEval(args: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parse(args, EVAL_OPTIONS);
  if (v.help) return usage(io);
  if (positionals.length !== 2) throw new UsageError('align eval takes MODEL alignment:DIR');
  const trained = loadAlignmentModel(positionals[0]!);
  const dir = dataDir(positionals[1]!);
  const { folds, fold } = foldOf(v, trained.heldOut);
  const pairs = readHansards(dir);
  const { test } = foldSplit(pairs, folds, fold);
  if (!v.quiet && (trained.heldOut === undefined || trained.heldOut.folds !== folds || trained.heldOut.fold !== fold)) {
    io.stderr.write(`note: fold ${fold} of ${folds} was not held out when this model was trained (its sentences may be in the training set)\n`);
  }
  const aligner = new Aligner(trained);
  const t0 = performance.now();
  const xs = test.map((p) => aligner.featurizer.featurize(p.e, p.f));
  const m = evaluateAlignments(test, (_, i) => aligner.model.decode(trained.w, xs[i]!));
  report({ command: 'align eval', folds, fold, n: test.length, ...m, seconds: (performance.now() - t0) / 1000 }, v.json ?? false, io, `evaluated ${positionals[0]} on fold ${fold} of ${folds}`);
  return 0;
}

async function runAlignPredict(args: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parse(args, PREDICT_OPTIONS);
  if (v.help) return usage(io);
  if (positionals.length < 1 || positionals.length > 2) throw new UsageError('align takes MODEL [PAIRS], e.g. gapbcfw align model.gbm pairs.txt');
  const order = v.order ?? 'ef';
  if (order !== 'ef' && order !== 'fe') throw new UsageError(`--order must be ef or fe, got '${order}'`);
  const source = positionals[1] ?? '-';
  if (source === '-' && process.stdin.isTTY) throw new UsageError("give a PAIRS file or pipe 'english ||| french' lines into stdin");
  const aligner = new Aligner(loadAlignmentModel(positionals[0]!));
  let text: string;
  try {
    text = readFileSync(source === '-' ? 0 : source, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read ${source === '-' ? 'stdin' : source}: ${(e as Error).message}`);
  }
  const pairs = parseParallelPairs(text, source === '-' ? 'stdin' : source);
  const t0 = performance.now();
  let links = 0;
  for (const [e, f] of pairs) {
    const a = aligner.align(e, f);
    const out: string[] = [];
    a.forEach((k, j) => {
      if (k < 0) return;
      links++;
      if (v.words) out.push(`${e[j]}=${f[k]}`);
      else out.push(order === 'ef' ? `${j}-${k}` : `${k}-${j}`);
    });
    io.stdout.write(`${out.join(' ')}\n`);
  }
  const seconds = (performance.now() - t0) / 1000;
  if (v.json) report({ command: 'align', pairs: pairs.length, links, seconds }, true, io, '');
  return 0;
}

function usage(io: Io): number {
  io.stdout.write(`${ALIGN_USAGE}\n`);
  return 0;
}

/**
 * Runs `gapbcfw align ARGS` and returns the exit code (0 success, 1 failed job, 2 bad usage or input;
 * 130 when training was interrupted).
 */
export async function runAlign(args: string[], io: Io): Promise<number> {
  try {
    switch (args[0]) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        return usage(io);
      case 'train':
        return await runAlignTrain(args.slice(1), io);
      case 'eval':
        return await runAlignEval(args.slice(1), io);
      default:
        return await runAlignPredict(args, io);
    }
  } catch (e) {
    return reportFailure(e, io);
  }
}
