import { writeOutput } from '../io/output.js';
import { meanLoss, modelProblem } from '../core/problem.js';
import { buildModel, loadTask } from '../data/datasets.js';
import { savePath } from '../io/path-file.js';
import { gridSearch, PAPER_GRID } from '../path/grid.js';
import { regularizationPath, type PathSolverOptions } from '../path/regpath.js';
import type { BcfwOptions } from '../solvers/bcfw.js';
import { UsageError, number, parse, positive, report, type Io } from './common.js';
import { countProgress } from './progress.js';
import { TRAIN_OPTIONS, backendOf, scoringOf, trainOptions } from './train-options.js';

export const PATH_USAGE = `gapbcfw path DATA [options]: the epsilon-approximate regularization path (Osokin et al. 2016, Sec. 4)

  --epsilon X              every piece is epsilon-approximate (default 0.1)
  --kappa X                breakpoints are solved to kappa * epsilon (default 0.9; heuristic 0.7)
  --heuristic              stop each solve on stale gap estimates (no exact pass; faster, no guarantee;
                           the true gap of every breakpoint is measured and reported)
  --min-lambda X           stop below this lambda (default 1e-5)
  --grid                   grid search instead: lambda = 2^15 .. 2^-15, each solved to --epsilon
  --warm-start MODE        for --grid: keep-primal (default) | keep-dual | none
  --solver, --sampling, --cache, ...  the block-coordinate solver (default bcpfw, gap sampling, cache)
  --split S, --test KIND:PATH   test error at every breakpoint / grid point
  --time-budget SECONDS, --out PATH.gbp (the path: pieces and certificates), --json, --quiet
  --trace FILE.jsonl       one row per breakpoint / grid point (method, lambda, cumulative seconds and
                           effective passes, gap, true gap, test error) for gapbcfw plot FILE... --x lambda

Query a stored path with: gapbcfw eval PATH.gbp DATA --lambda X`;

const PATH_OPTIONS = {
  ...TRAIN_OPTIONS,
  epsilon: { type: 'string' },
  kappa: { type: 'string' },
  heuristic: { type: 'boolean' },
  'min-lambda': { type: 'string' },
  grid: { type: 'boolean' },
  'warm-start': { type: 'string' },
} as const;

/** `gapbcfw path`: regularization path or grid search on a data set. */
export async function runPath(args: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parse(args, PATH_OPTIONS);
  if (v.help) {
    io.stdout.write(`${PATH_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('path takes one data set KIND:PATH, e.g. gapbcfw path ocr:letter.data.gz --split small');
  for (const flag of ['lambda', 'gap-threshold', 'resume', 'checkpoint'] as const) {
    if (v[flag] !== undefined) throw new UsageError(`--${flag} does not apply to path (the path chooses lambdas and thresholds itself)`);
  }
  const task = loadTask(positionals[0]!, { split: v.split, test: v.test });
  const model = buildModel(task.spec, backendOf(v.backend));
  const problem = modelProblem(model, task.train, { scoring: scoringOf(model, v.backend, v['gpu-mode']).scoring });
  // The paper's choice unless the user picks a solver: BCPFW with gap sampling and caching.
  const flags = v.solver === undefined ? { ...v, solver: 'bcpfw', sampling: v.sampling ?? 'gap', cache: true } : v;
  const o = trainOptions(flags, {}) as BcfwOptions & { solver?: string };
  if (o.solver !== 'bcfw') throw new UsageError('path needs a block-coordinate solver (bcfw, bcpfw, bcafw, hybrid)');
  const { solver: _s, timeBudget, ...solverOptions } = o;
  const epsilon = number(v.epsilon, 'epsilon', positive, 'a positive number') ?? 0.1;
  const test = task.test;
  // The test error of every breakpoint / grid point, after the path (its time is not the path's): one
  // decoding pass over the test set each, with progress, since it can take longer than the last solves.
  const testErrors = <P extends { w: Float64Array }>(points: P[]): (P & { testError?: number })[] => {
    const progress = countProgress(io.stderr, 'test error at each lambda', (v.quiet ?? false) || test === undefined);
    return points.map((p, k) => {
      const testError = test ? meanLoss(model, p.w, test) : undefined;
      progress(k + 1, points.length);
      return { ...p, testError };
    });
  };
  const say = (line: string) => {
    if (!v.quiet) io.stderr.write(`${line}\n`);
  };
  say(`${task.description}; ${problem.n} blocks, d = ${problem.dim}`);

  if (v.grid) {
    const mode = (v['warm-start'] ?? 'keep-primal') as 'keep-primal' | 'keep-dual' | 'none';
    if (!['keep-primal', 'keep-dual', 'none'].includes(mode)) throw new UsageError(`--warm-start must be keep-primal, keep-dual or none, got '${mode}'`);
    const g = gridSearch(problem, {
      lambdas: [...PAPER_GRID], epsilon, warmStart: mode, solver: solverOptions as PathSolverOptions, timeBudget,
      onPoint: (p) => say(`lambda ${p.lambda.toExponential(3)}  gap ${p.gap.toExponential(2)}  ${p.stopReason}  eff ${p.effectivePasses.toFixed(1)}  ${p.seconds.toFixed(1)}s`),
    });
    const points = testErrors(g.points).map(({ w: _w, ...rest }) => rest);
    writeRows(v.trace, io, `grid, ${mode === 'none' ? 'no warm start' : mode}`, points);
    report({ command: 'path', mode: 'grid', warmStart: mode, epsilon, points, effectivePasses: g.effectivePasses, seconds: g.seconds }, v.json ?? false, io, `grid search (${mode}) over ${points.length} lambdas`);
    return 0;
  }

  const kappa = number(v.kappa, 'kappa', (x) => x > 0 && x < 1, 'in (0, 1)');
  const minLambda = number(v['min-lambda'], 'min-lambda', positive, 'a positive number');
  const path = regularizationPath(problem, {
    epsilon, kappa, heuristic: v.heuristic ?? false, minLambda, solver: solverOptions as PathSolverOptions, timeBudget,
    onBreakpoint: (b) => say(`lambda ${b.lambda.toExponential(3)}  gap ${b.gap.toExponential(2)}${b.trueGap === undefined ? '' : ` (true ${b.trueGap.toExponential(2)})`}  eff ${b.effectivePasses.toFixed(1)}  ${b.seconds.toFixed(1)}s`),
  });
  const breakpoints = testErrors(path.breakpoints);
  writeRows(v.trace, io, path.heuristic ? 'heuristic path' : 'exact path', breakpoints);
  if (v.out !== undefined) savePath(v.out, { ...path, spec: task.spec, breakpoints });
  report(
    {
      command: 'path', mode: path.heuristic ? 'heuristic' : 'exact', epsilon: path.epsilon, kappa: path.kappa, lambdaInf: path.lambdaInf,
      breakpoints: breakpoints.length, complete: path.complete, validDownTo: path.validDownTo, stopReason: path.stopReason,
      effectivePasses: path.effectivePasses, seconds: path.seconds, out: v.out,
      points: breakpoints.map(({ w: _w, ...rest }) => rest),
    },
    v.json ?? false, io, `${path.heuristic ? 'heuristic' : 'exact'} path: ${breakpoints.length} breakpoints (${path.stopReason})`,
  );
  return 0;
}

/** The --trace rows of a path or grid search (src/plot/path-figure.ts reads them). */
function writeRows(file: string | undefined, io: Io, method: string, points: { lambda: number; seconds: number; effectivePasses: number; gap: number; trueGap?: number; testError?: number }[]): void {
  if (file === undefined) return;
  const lines = points.map(({ lambda, seconds, effectivePasses, gap, trueGap, testError }) => JSON.stringify({ method, lambda, seconds, effectivePasses, gap, trueGap, testError }));
  writeOutput(file, lines.length > 0 ? `${lines.join('\n')}\n` : '', { stdout: io.stdout });
}
