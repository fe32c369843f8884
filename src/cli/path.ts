import { writeOutput } from '../io/output.js';
import { modelProblem } from '../engine/problem.js';
import { savePath } from '../path/path-file.js';
import { gridSearchAsync, PAPER_GRID, type GridResult } from '../path/grid.js';
import { regularizationPathAsync, type PathSolverSettings, type RegularizationPath } from '../path/regpath.js';
import { evaluatePart, loadTask, parseDataSpec } from '../tasks/index.js';
import { buildModel } from '../tasks/model-kinds.js';
import { positional, value, type Args, type Command, type CommandOption } from './args.js';
import { UsageError, report, type Io } from './common.js';
import { BACKEND_OPTIONS, DATA_OPTIONS, REPORT_OPTIONS, decodeBackend, loadOptions, scoringOf, settingOptions, taskOptionTable, trainSettings } from './options.js';
import { LAMBDA_RANGE, SETTINGS } from '../solvers/settings.js';
import { countProgress } from './progress.js';
import { checkCommandOutputs, withInterrupts } from './session.js';

/**
 * `gapbcfw path DATA`: the epsilon-approximate regularization path (Osokin et al. 2016, Sec. 4) or a grid search
 * over lambda, for every task.
 * @module
 */

/** Help of the solver rows whose words or defaults differ for the path. */
const PATH_HELP: Readonly<Record<string, Partial<CommandOption>>> = {
  solver: { help: 'bcpfw = pairwise steps, bcafw = FW + away steps, hybrid = the best of FW/away/pairwise', default: "bcpfw with --sampling gap and --cache (the paper's)" },
  'max-passes': { help: 'cap on passes at each lambda', default: '10000; --grid 1000' },
};

const path = 'Regularization path';
export const pathCommand: Command = {
  name: 'path',
  summary: 'the epsilon-approximate regularization path (2016, Sec. 4), or --grid search over lambda',
  description:
    'Every piece of the path is epsilon-approximate; query a stored path with gapbcfw eval PATH.gbp DATA --lambda X.\n' +
    'The solver defaults to the paper\'s choice (bcpfw, gap sampling, cache) unless --solver is given. SIGINT, SIGTERM\n' +
    'and SIGHUP stop after the current pass and write the path so far.',
  positionals: [{ name: 'DATA', help: 'KIND:PATH', input: 'data' }],
  options: [
    { name: 'epsilon', type: 'number', value: 'X', min: 0, minExclusive: true, max: 1e6, help: 'every piece is epsilon-approximate', default: '0.1', group: path },
    { name: 'kappa', type: 'number', value: 'X', min: 0, minExclusive: true, max: 0.999999, help: 'breakpoints are solved to kappa * epsilon', default: '0.9; heuristic 0.7', group: path },
    { name: 'heuristic', type: 'flag', help: 'stop each solve on stale gap estimates (no exact pass; the true gap of every breakpoint is measured and reported)', group: path },
    { name: 'min-lambda', type: 'number', value: 'X', ...LAMBDA_RANGE, help: 'stop below this lambda', default: '1e-5', group: path },
    { name: 'grid', type: 'flag', help: 'grid search instead: lambda = 2^15 .. 2^-15, each solved to --epsilon', group: path },
    { name: 'warm-start', type: 'choice', value: 'MODE', choices: ['keep-primal', 'keep-dual', 'none'], help: 'for --grid: how each lambda starts', default: 'keep-primal', group: path },
    { name: 'out', type: 'string', value: 'PATH.gbp', short: 'o', output: 'file', help: 'write the path (pieces and certificates)', group: path },
    { name: 'trace', type: 'string', value: 'FILE.jsonl', output: 'file', help: 'one row per breakpoint / grid point (for gapbcfw plot FILE... --x lambda)', group: path },
    // The path sets lambda and the gap threshold itself, and runs the block-coordinate solvers only: their settings,
    // with the path's own defaults in the help.
    ...settingOptions(SETTINGS.filter((o) => o.key !== 'lambda' && o.key !== 'gapThreshold' && (o.solvers?.includes('bcfw') ?? true)), 'Solver', ['bcfw', 'bcpfw', 'bcafw', 'hybrid']).map((o) => ({ ...o, ...PATH_HELP[o.name] })),
    ...DATA_OPTIONS,
    ...taskOptionTable('train'),
    ...BACKEND_OPTIONS,
    ...REPORT_OPTIONS,
  ],
  run: runPath,
};

/** The path or grid search of `gapbcfw path`. */
async function runPath(a: Args, io: Io): Promise<number> {
  const spec = positional(a, 0);
  // The path's options do nothing for a grid search, and the grid's nothing for the path.
  const grid = value.flag(a, 'grid');
  for (const flag of grid ? ['kappa', 'heuristic', 'min-lambda', 'out'] : ['warm-start']) {
    if (!a.given.has(flag)) continue;
    if (flag === 'warm-start') throw new UsageError('--warm-start applies to --grid (the path warm-starts every breakpoint from the last)');
    throw new UsageError(`--${flag} applies to the path, not to --grid (${flag === 'out' ? 'a grid search writes its rows with --trace, not a path file' : 'every grid point is solved to --epsilon'})`);
  }
  const summaryIo = checkCommandOutputs(a, io);
  const task = await loadTask(spec, loadOptions(a, parseDataSpec(spec).kind));
  const model = buildModel(task.spec, decodeBackend(a));
  const problem = modelProblem(model, task.train, { scoring: scoringOf(model, a).scoring, objective: task.spec });
  // The paper's choice unless the user picks a solver: BCPFW with gap sampling and caching.
  const flags = a.given.has('solver') ? a : { ...a, values: { ...a.values, solver: 'bcpfw', sampling: a.values.sampling ?? 'gap', cache: true }, given: new Set([...a.given, 'solver', 'sampling', 'cache']) };
  const { solver: _s, timeBudget, ...solverSettings } = trainSettings(flags, {});
  const epsilon = value.number(a, 'epsilon') ?? 0.1;
  const json = value.flag(a, 'json');
  const trace = value.string(a, 'trace');
  const out = value.string(a, 'out');
  const test = task.test;
  // The test error of every breakpoint / grid point, after the path (its time is not the path's): one
  // decoding pass over the test set each, with progress, since it can take longer than the last solves.
  const testErrors = <P extends { w: Float64Array }>(points: P[]): (P & { testError?: number })[] => {
    const progress = countProgress(io.stderr, 'test error at each lambda', value.flag(a, 'quiet') || test === undefined);
    return points.map((p, k) => {
      const testError = test ? evaluatePart(task, model, p.w, 'test').testError : undefined;
      progress(k + 1, points.length);
      return { ...p, testError };
    });
  };
  const say = (line: string) => {
    if (!value.flag(a, 'quiet')) io.stderr.write(`${line}\n`);
  };
  say(`${task.description}; ${problem.n} blocks, d = ${problem.dim}`);

  if (value.flag(a, 'grid')) {
    const mode = (value.string(a, 'warm-start') ?? 'keep-primal') as 'keep-primal' | 'keep-dual' | 'none';
    let g: GridResult | undefined;
    const code = await withInterrupts(io, 'finishing the current pass and writing the grid so far', async (signal) => {
      g = await gridSearchAsync(problem, {
        lambdas: [...PAPER_GRID], epsilon, warmStart: mode, solver: solverSettings as PathSolverSettings, timeBudget, signal,
        onPoint: (p) => say(`lambda ${p.lambda.toExponential(3)}  gap ${p.gap.toExponential(2)}  ${p.stopReason}  eff ${p.effectivePasses.toFixed(1)}  ${p.seconds.toFixed(1)}s`),
      });
      return 0;
    });
    const points = testErrors(g!.points).map(({ w: _w, ...rest }) => rest);
    writeRows(trace, io, `grid, ${mode === 'none' ? 'no warm start' : mode}`, points);
    report({ command: 'path', mode: 'grid', warmStart: mode, epsilon, points, effectivePasses: g!.effectivePasses, seconds: g!.seconds }, json, summaryIo, `grid search (${mode}) over ${points.length} lambdas`);
    return code;
  }

  let path: RegularizationPath | undefined;
  const code = await withInterrupts(io, 'finishing the current pass and writing the path so far', async (signal) => {
    path = await regularizationPathAsync(problem, {
      epsilon, kappa: value.number(a, 'kappa'), heuristic: value.flag(a, 'heuristic'), minLambda: value.number(a, 'min-lambda'), solver: solverSettings as PathSolverSettings, timeBudget, signal,
      onBreakpoint: (b) => say(`lambda ${b.lambda.toExponential(3)}  gap ${b.gap.toExponential(2)}${b.trueGap === undefined ? '' : ` (true ${b.trueGap.toExponential(2)})`}  eff ${b.effectivePasses.toFixed(1)}  ${b.seconds.toFixed(1)}s`),
    });
    return 0;
  });
  const p = path!;
  const breakpoints = testErrors(p.breakpoints);
  writeRows(trace, io, p.heuristic ? 'heuristic path' : 'exact path', breakpoints);
  if (out !== undefined) savePath(out, { ...p, task: task.task, spec: task.spec, fields: task.fields, breakpoints }, { stdout: io.stdout });
  report(
    {
      command: 'path', mode: p.heuristic ? 'heuristic' : 'exact', epsilon: p.epsilon, kappa: p.kappa, lambdaInf: p.lambdaInf,
      breakpoints: breakpoints.length, complete: p.complete, validDownTo: p.validDownTo, stopReason: p.stopReason,
      effectivePasses: p.effectivePasses, seconds: p.seconds, out,
      points: breakpoints.map(({ w: _w, ...rest }) => rest),
    },
    json, summaryIo, `${p.heuristic ? 'heuristic' : 'exact'} path: ${breakpoints.length} breakpoints (${p.stopReason})`,
  );
  return code;
}

/** The --trace rows of a path or grid search (src/plot/path-figure.ts reads them). */
function writeRows(file: string | undefined, io: Io, method: string, points: { lambda: number; seconds: number; effectivePasses: number; gap: number; trueGap?: number; testError?: number }[]): void {
  if (file === undefined) return;
  const lines = points.map(({ lambda, seconds, effectivePasses, gap, trueGap, testError }) => JSON.stringify({ method, lambda, seconds, effectivePasses, gap, trueGap, testError }));
  writeOutput(file, lines.length > 0 ? `${lines.join('\n')}\n` : '', { stdout: io.stdout });
}
