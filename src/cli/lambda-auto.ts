/**
 * `train --lambda auto`: lambda chosen on held-out data. The warm-started grid (src/path/grid.ts), or with
 * `--lambda-search path` the epsilon-approximate regularization path (2016, Sec. 4; src/path/regpath.ts), is walked
 * on the training set; every breakpoint's w (epsilon-approximate on its piece) is scored on the dev set (`--dev DATA`, or
 * the last `--dev-fraction F` of the training set) with the task's metric (span or chunk F1 where the task has one,
 * else token or example accuracy, else minus the mean task loss). Training then runs at the best lambda (the largest
 * of equal scores); the curve goes into the summary.
 * @module
 */
import { InputError } from '../core/errors.js';
import type { StructuredModel } from '../core/problem.js';
import { modelProblem } from '../engine/problem.js';
import { gridSearchAsync } from '../path/grid.js';
import { regularizationPathAsync, type PathSolverSettings } from '../path/regpath.js';
import type { ScoringBackend } from '../core/scoring.js';
import { chainScores, namesOf } from '../tasks/chains.js';
import { evaluatePart, loadTask } from '../tasks/index.js';
import type { DataKind, TaskData } from '../tasks/types.js';
import { value, type Args, type CommandOption } from './args.js';
import { UsageError, type Io } from './common.js';
import { loadOptions } from './options.js';

const group = 'Choosing lambda (--lambda auto)';
/** The options of `--lambda auto`. */
export const LAMBDA_AUTO_OPTIONS: readonly CommandOption[] = [
  { name: 'dev', type: 'string', value: 'KIND:PATH', input: true, help: 'held-out data that --lambda auto scores every lambda on (same kind as DATA)', group },
  { name: 'dev-fraction', type: 'number', value: 'F', min: 0, minExclusive: true, max: 0.5, help: 'hold out the last fraction F of the training set as the dev set (the final model trains on all of it)', group },
  { name: 'lambda-search', type: 'choice', value: 'HOW', choices: ['grid', 'path'], help: 'grid: 10^1 .. 10^-5 in half decades, warm-started, each solved to the gap threshold; path: the epsilon-approximate regularization path from lambda_inf (many short pieces at large lambda)', default: 'grid', group },
  { name: 'min-lambda', type: 'number', value: 'X', min: 1e-12, max: 1e12, help: 'the smallest lambda --lambda auto tries', default: '1e-5', group },
];

/** One point of the curve: a lambda, its dev score and the gap certified (or bounded) there. */
export interface LambdaPoint {
  lambda: number;
  score: number;
  gap: number;
}

/** What --lambda auto found: the best lambda, the metric and the curve. */
export interface LambdaChoice {
  lambda: number;
  metric: string;
  curve: LambdaPoint[];
  searchSeconds: number;
}

/** The data the search trains on, and the dev set (its `train` part) with the metrics that score it. */
async function devSetup(a: Args, data: TaskData, kind: DataKind): Promise<{ train: TaskData; dev: TaskData }> {
  const devSpec = value.string(a, 'dev');
  const fraction = value.number(a, 'dev-fraction');
  if ((devSpec === undefined) === (fraction === undefined)) throw new UsageError('--lambda auto needs held-out data: --dev KIND:PATH or --dev-fraction F (one of them)');
  if (devSpec !== undefined) {
    const model = { task: data.task, spec: data.spec, fields: data.fields };
    return { train: data, dev: await loadTask(devSpec, { ...loadOptions(a, kind), test: undefined, limit: undefined, values: {}, model }) };
  }
  const n = data.train.length;
  const held = Math.max(1, Math.round(fraction! * n));
  if (n - held < 1) throw new UsageError(`--dev-fraction ${fraction} leaves no training example of ${n}`);
  const devSet = data.train.slice(n - held, n);
  const names = (data.spec as { labelNames?: string[] }).labelNames;
  const chain = data.spec.kind === 'chain' || data.spec.kind === 'sparse-chain';
  // The dev part is a slice of the training set: its gold labels are ids of the model's labels.
  const metrics = chain && names
    ? (_part: string, predictions: readonly unknown[]) => chainScores(Array.from({ length: devSet.length }, (_, i) => namesOf(names, devSet.label(i) as Int32Array)), predictions as Int32Array[], names).metrics
    : undefined;
  return { train: { ...data, train: data.train.slice(0, n - held), test: undefined }, dev: { ...data, train: devSet, test: undefined, metrics } };
}

/** The metric that ranks lambdas: f1, else accuracy, else minus the mean task loss. */
function scoreOf(figures: Record<string, number>): { metric: string; score: number } {
  if (figures.f1 !== undefined) return { metric: 'f1', score: figures.f1 };
  if (figures.accuracy !== undefined) return { metric: 'accuracy', score: figures.accuracy };
  return { metric: '-trainError', score: -figures.trainError! };
}

/** Walks the path or the grid on the training part and scores every breakpoint on the dev part. */
export async function chooseLambda(
  a: Args, io: Io, data: TaskData, kind: DataKind, model: StructuredModel<unknown, unknown>,
  setup: { solver: PathSolverSettings; epsilon: number; scoring?: ScoringBackend; signal?: AbortSignal },
): Promise<LambdaChoice> {
  const { train, dev } = await devSetup(a, data, kind);
  const problem = modelProblem(model, train.train, { scoring: setup.scoring });
  const minLambda = value.number(a, 'min-lambda') ?? 1e-5;
  const quiet = value.flag(a, 'quiet');
  const curve: LambdaPoint[] = [];
  let metric = '';
  const t0 = performance.now();
  const score = (lambda: number, w: Float64Array, gap: number) => {
    const s = scoreOf(evaluatePart(dev, model, w, 'train'));
    metric = s.metric;
    curve.push({ lambda, score: s.score, gap });
    if (!quiet) io.stderr.write(`lambda ${lambda.toExponential(3)}  dev ${s.metric} ${s.score.toFixed(4)}  gap ${gap.toExponential(2)}\n`);
  };
  if (!quiet) io.stderr.write(`--lambda auto: ${value.string(a, 'lambda-search') ?? 'grid'} on ${train.train.length} examples, scored on ${dev.train.length} dev examples\n`);
  if (value.string(a, 'lambda-search') !== 'path') {
    const lambdas = Array.from({ length: 13 }, (_, k) => 10 ** (1 - k / 2)).filter((l) => l >= minLambda);
    await gridSearchAsync(problem, {
      lambdas, epsilon: setup.epsilon, solver: setup.solver, signal: setup.signal,
      onPoint: (p) => {
        score(p.lambda, p.w, p.gap);
        p.w = new Float64Array(0);
      },
    });
  } else {
    const path = await regularizationPathAsync(problem, {
      epsilon: setup.epsilon, minLambda, solver: setup.solver, signal: setup.signal,
      onBreakpoint: (b) => {
        score(b.lambda, b.w, b.gap);
        b.w = new Float64Array(0); // scored: training reruns at the best lambda, so the path need not hold every w (d each)
      },
    });
    if (curve.length === 0) score(path.lambdaInf, path.wInf, path.gapInf);
  }
  if (curve.length === 0) throw new InputError('--lambda auto: the search was stopped before any lambda was solved');
  let best = curve[0]!;
  for (const p of curve) if (p.score > best.score) best = p;
  return { lambda: best.lambda, metric, curve, searchSeconds: (performance.now() - t0) / 1000 };
}
