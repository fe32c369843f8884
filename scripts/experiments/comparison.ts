/**
 * The comparison of the 2013 BCFW paper (Lacoste-Julien, Jaggi, Schmidt & Pletscher, ICML 2013, Sec. 6, Fig. 1, and
 * App. F, Figs. 3-5): BCFW and BCFW-wavg (line search, uniform sampling, without and with weighted averaging), SSG and
 * SSG-wavg (Pegasos steps 1/(lambda (k+1)), without and with weighted averaging), batch FW (line search) and the
 * 1-slack cutting plane, on one data set and lambda.
 *
 *   npx tsx scripts/experiments/comparison.ts run --data ocr:$D/ocr/letter.data.gz --split small --lambda 1/n \
 *       --seeds 10 --max-passes 100 --batch-passes 400 --time-budget 120 --out runs/cmp-ocr-small-1n
 *   npx tsx scripts/experiments/comparison.ts report runs/cmp-ocr-small-1n --figures docs/figures/cmp-ocr-small-1n
 *
 * `run` trains every method (the stochastic ones with seeds 1..--seeds, the batch ones once), interleaved seed by
 * seed, and writes one JSONL trace per run into --out. The stochastic methods log the primal of their returned
 * iterate every pass for the plots (BCFW: its exact gap; `monitorEvery`, not counted in effective passes or time);
 * BCFW keeps its own exact gap pass every 10 passes, which is counted (it is its stopping certificate). FW and the
 * cutting plane certify every iteration as part of their pass. The test error is measured at log-spaced events
 * (every event for the first 20, then every 15% more). Every event carries `cpuSeconds`: the process's CPU time
 * (user + system, every thread) since the run started, less the CPU of those measurements, i.e. the training's CPU
 * time, which the other jobs of a shared machine disturb much less than its wall time (`seconds`).
 *
 * `report` takes the best dual seen over all runs as the reference (App. F: "primal suboptimality ... measured as
 * the difference to the highest dual objective seen"), draws primal - best dual and the test error against
 * effective passes and against CPU seconds (median over seeds, min-max band; for the batch methods the lower
 * envelope of their primal, as the paper draws it), and prints per method the median effective passes and CPU
 * seconds to exact duality gaps (`toGap`, the method's own certificate) and to primal suboptimalities (`toSubopt`,
 * known only after the fact) of 0.1, 0.01 and 0.001.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { modelProblem } from '../../src/engine/problem.js';
import { InputError } from '../../src/core/errors.js';
import { buildFigure, renderPng, renderSvg, type XAxis, type YMetric } from '../../src/plot/figures.js';
import { groupSeries, readTraces, type TraceEvent, type TraceRun } from '../../src/plot/traces.js';
import { createSolver, type TrainHooks } from '../../src/solvers/index.js';
import type { TrainSettings } from '../../src/solvers/settings.js';
import { evaluatePart, loadTask } from '../../src/tasks/index.js';
import { buildModel } from '../../src/tasks/model-kinds.js';
import type { OptionValues } from '../../src/tasks/types.js';
import { writeRunTrace } from './run-trace.js';
import { crossings, exactGap, medianOrNull } from './summarize.js';

/** The methods of the paper's Figure 1; `stochastic` ones run once per seed. */
const METHODS: Record<string, { options: TrainSettings; stochastic: boolean }> = {
  BCFW: { options: { solver: 'bcfw', batch: 1, averaging: false, gapCheck: 10 }, stochastic: true },
  'BCFW-wavg': { options: { solver: 'bcfw', batch: 1, averaging: true, gapCheck: 10 }, stochastic: true },
  SSG: { options: { solver: 'ssg', averaging: false, gapCheck: 1e9 }, stochastic: true },
  'SSG-wavg': { options: { solver: 'ssg', averaging: true, gapCheck: 1e9 }, stochastic: true },
  FW: { options: { solver: 'fw' }, stochastic: false },
  'cutting plane': { options: { solver: 'cutting-plane' }, stochastic: false },
  // Not in the 2013 paper: the 2016 paper's best variant, for reference.
  'BCPFW, gap, cache': { options: { solver: 'bcfw', batch: 1, step: 'pairwise', sampling: 'gap', cache: true, gapCheck: 10 }, stochastic: true },
  // The 2013 paper's App. F, Fig. 2: the predefined steps 2n/(k+2n) (BCFW) and 2/(k+2) (FW) instead of line search.
  'BCFW-predefined': { options: { solver: 'bcfw', batch: 1, averaging: false, lineSearch: false, gapCheck: 10 }, stochastic: true },
  'FW-predefined': { options: { solver: 'fw', lineSearch: false }, stochastic: false },
};
/** The batch methods, whose lower envelope of the primal is drawn (App. F). */
const isBatch = (method: string) => method === 'FW' || method === 'FW-predefined' || method.startsWith('cutting plane');
const THRESHOLDS = [0.1, 0.01, 0.001];

const [command, ...rest] = process.argv.slice(2);
if (command === 'run') await run(rest);
else if (command === 'report') await report(rest);
else throw new InputError(`usage: comparison.ts run|report ... (got '${command ?? ''}')`);

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: 'string', default: 'synthetic:' },
      split: { type: 'string' },
      // Task options as NAME=VALUE,... (e.g. folds=5,fold=0 for alignment).
      task: { type: 'string' },
      lambda: { type: 'string', default: '1/n' },
      seeds: { type: 'string', default: '10' },
      // Start at this seed (to add seeds to a folder of runs).
      'first-seed': { type: 'string', default: '1' },
      // Stop a run once its exact gap is <= this (the stochastic methods check it every 10 passes).
      'gap-threshold': { type: 'string', default: '0' },
      'max-passes': { type: 'string', default: '100' },
      'batch-passes': { type: 'string' },
      'time-budget': { type: 'string', default: '600' },
      // Methods separated by ';', each optionally METHOD=SEEDS:PASSES to give it its own seeds and pass cap.
      methods: { type: 'string' },
      // Settings of the cutting plane (its method is then named after them: `cutting plane, QP 0.001`).
      'qp-tolerance': { type: 'string' },
      'inactive-window': { type: 'string' },
      out: { type: 'string', default: 'runs/comparison' },
    },
  });
  const taskValues: OptionValues = Object.fromEntries((values.task ?? '').split(',').filter((kv) => kv !== '').map((kv) => {
    const [k, v] = kv.split('=');
    return [k!, v === undefined ? true : Number.isNaN(Number(v)) ? v : Number(v)];
  }));
  const task = await loadTask(values.data, { split: values.split, values: taskValues });
  const model = buildModel(task.spec);
  const problem = modelProblem(model, task.train);
  const lambda = values.lambda === '1/n' ? 1 / problem.n : Number(values.lambda);
  const data = values.split === undefined ? values.data : `${values.data} --split ${values.split}`;
  // METHOD or METHOD=SEEDS:PASSES (its own number of seeds and pass cap).
  const plan = (values.methods ? values.methods.split(';') : Object.keys(METHODS).slice(0, 6)).map((item) => {
    const [name, custom] = item.split('=');
    if (!METHODS[name!]) throw new InputError(`unknown method '${name}' (${Object.keys(METHODS).join('; ')})`);
    const [seeds, passes] = (custom ?? '').split(':');
    const spec = METHODS[name!]!;
    const defaultPasses = spec.stochastic ? values['max-passes'] : (values['batch-passes'] ?? values['max-passes']);
    let label = name!;
    let options = spec.options;
    if (name === 'cutting plane') {
      const qp = values['qp-tolerance'];
      const window = values['inactive-window'];
      options = { ...options, ...(qp ? { qpTolerance: Number(qp) } : {}), ...(window ? { inactiveWindow: Number(window) } : {}) };
      label = [name, ...(qp ? [`QP ${qp}`] : []), ...(window ? [`window ${window}`] : [])].join(', ');
    }
    return { name: label, spec: { ...spec, options }, seeds: spec.stochastic ? Number(seeds || values.seeds) : 1, maxPasses: Number(passes || defaultPasses) };
  });
  mkdirSync(values.out, { recursive: true });
  process.stderr.write(`${task.description}; n = ${problem.n}, d = ${problem.dim}, lambda = ${lambda}; test part: ${task.test ? task.test.length : 'none'}\n`);
  const cpu = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1e6;
  };
  const summary: unknown[] = [];
  const maxSeeds = Math.max(...plan.map((p) => p.seeds));
  for (let seed = Number(values['first-seed']); seed <= maxSeeds; seed++) {
    for (const { name: method, spec, seeds, maxPasses } of plan) {
      if (seed > seeds) continue;
      // CPU bookkeeping: evaluation (inside `evaluate`) and monitor passes (between a pass event and the monitor
      // event right after it) are subtracted from the run's CPU time.
      const start = cpu();
      let measuring = 0;
      let lastEventCpu = start;
      let measuringAtLastEvent = 0;
      let evaluations = 0;
      let nextEvaluation = 1;
      const events: object[] = [];
      const settings: TrainSettings = {
        ...spec.options, lambda, seed, gapThreshold: Number(values['gap-threshold']), timeBudget: Number(values['time-budget']), maxPasses,
        ...(spec.stochastic ? { monitorEvery: 1 } : {}),
      };
      const hooks: TrainHooks = {
        evaluate: (w: Float64Array) => {
          if (!task.test || ++evaluations < nextEvaluation) return {};
          nextEvaluation = evaluations < 20 ? evaluations + 1 : Math.ceil(evaluations * 1.15);
          const t0 = cpu();
          const metrics = evaluatePart(task, model, w, 'test');
          measuring += cpu() - t0;
          return metrics;
        },
        onProgress: (e: TraceEvent) => {
          const now = cpu();
          if (e.monitor) measuring += now - lastEventCpu - (measuring - measuringAtLastEvent);
          lastEventCpu = now;
          measuringAtLastEvent = measuring;
          events.push({ method, seed, lambda, data, ...e, cpuSeconds: now - start - measuring });
        },
      };
      let solver;
      try {
        solver = createSolver(problem, settings, hooks);
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        process.stderr.write(`${method}: skipped (${e.message})\n`);
        continue;
      }
      while (solver.runPass());
      const r = solver.result();
      writeRunTrace(values.out, method, seed, events);
      const last = events.at(-1) as { cpuSeconds: number };
      summary.push({ method, seed, passes: r.passes, effectivePasses: r.effectivePasses, seconds: r.seconds, cpuSeconds: last.cpuSeconds, primal: r.primal, gap: r.gap, stopReason: r.stopReason });
      process.stderr.write(`${method} seed ${seed}: ${r.passes} passes, ${r.effectivePasses.toFixed(1)} effective, primal ${r.primal?.toPrecision(6)}, gap ${r.gap?.toExponential(3) ?? '-'}, ${last.cpuSeconds.toFixed(1)} CPU s (${r.seconds.toFixed(1)} s)\n`);
    }
  }
  console.log(JSON.stringify({ data, lambda, n: problem.n, dim: problem.dim, runs: summary }));
}

async function report(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      figures: { type: 'string' },
      title: { type: 'string' },
      // The task metric drawn as the test error (e.g. aer for word alignment, the paper's test error there).
      'test-metric': { type: 'string', default: 'testError' },
      // A logarithmic x axis (the paper's CoNLL figures), to show the first passes and the long run together.
      'log-x': { type: 'boolean', default: false },
    },
  });
  const { runs } = readTraces(positionals);
  // The reference: the highest dual of any event of any run (App. F).
  const bestDual = Math.max(...runs.flatMap((r) => r.events.map((e) => (typeof e.dual === 'number' ? e.dual : -Infinity))));
  if (!Number.isFinite(bestDual)) throw new InputError('no run logged a dual objective: run FW, BCFW or the cutting plane too');
  const metric = values['test-metric'];
  const prepared: TraceRun[] = runs.map((run) => {
    let envelope = Infinity;
    const events = run.events.map((e) => {
      const out: TraceEvent = { ...e, testError: typeof e[metric] === 'number' ? (e[metric] as number) : undefined };
      if (typeof e.primal === 'number') {
        envelope = Math.min(envelope, e.primal);
        out.objective = isBatch(run.method) ? envelope : e.primal;
      }
      return out;
    });
    return { ...run, events };
  });
  const series = groupSeries(prepared);
  const subopt = (e: TraceEvent) => (typeof e.objective === 'number' ? e.objective - bestDual : undefined);
  const fields = ['effectivePasses', 'cpuSeconds'];
  const toGap = crossings(series, THRESHOLDS, exactGap, fields);
  const toSubopt = crossings(series, THRESHOLDS, subopt, fields);
  const finalTest = series.map((s) => {
    const last = s.runs.map((r) => [...r.events].reverse().find((e) => typeof e.testError === 'number')?.testError ?? null);
    return { method: s.method, testError: last };
  });
  // A Markdown table: median effective passes / CPU seconds to each exact gap and suboptimality.
  const cell = (row: Record<string, unknown>, thr: number) => {
    const eff = row[`effectivePassesTo${thr}`];
    return eff === null ? '-' : `${eff} / ${row[`cpuSecondsTo${thr}`]} s`;
  };
  const head = THRESHOLDS.map((t) => `gap ${t}`).concat(THRESHOLDS.map((t) => `subopt. ${t}`));
  const lines = [`| method | seeds | ${head.join(' | ')} | test ${metric === 'testError' ? 'error' : metric} (median, last) |`, `| --- | --- |${' --- |'.repeat(head.length + 1)}`];
  toGap.forEach((g, k) => {
    const test = medianOrNull(finalTest[k]!.testError) ?? '-';
    lines.push(`| ${g.method} | ${g.seeds} | ${THRESHOLDS.map((t) => cell(g, t)).concat(THRESHOLDS.map((t) => cell(toSubopt[k]!, t))).join(' | ')} | ${test} |`);
  });
  process.stderr.write(`${lines.join('\n')}\n`);
  if (values.figures) {
    const title = values.title;
    const cpuTime = (list: TraceRun[]) => groupSeries(list.map((r) => ({ ...r, events: r.events.map((e) => ({ ...e, seconds: Number(e.cpuSeconds) })) })));
    const draw: [string, XAxis, YMetric, string][] = [
      ['subopt-passes', 'effective', 'residual', 'primal suboptimality (primal - best dual)'],
      ['subopt-cpu', 'time', 'residual', 'primal suboptimality against CPU seconds'],
      ['test-passes', 'effective', 'testError', `test ${metric === 'testError' ? 'error' : metric}`],
      ['test-cpu', 'time', 'testError', `test ${metric === 'testError' ? 'error' : metric} against CPU seconds`],
    ];
    mkdirSync(values.figures.split('/').slice(0, -1).join('/') || '.', { recursive: true });
    for (const [suffix, x, y, what] of draw) {
      const figure = buildFigure(x === 'time' ? cpuTime(prepared) : series, { x, y, ...(y === 'residual' ? { optimum: bestDual } : {}), ...(title ? { title: `${title}: ${what}` } : {}) });
      retitle(figure.spec, x === 'time' ? 'CPU seconds' : undefined, y === 'residual' ? 'primal - best dual' : metric === 'testError' ? undefined : `test ${metric}`, values['log-x']);
      writeFileSync(`${values.figures}-${suffix}.png`, renderPng(await renderSvg(figure.spec)));
    }
  }
  console.log(JSON.stringify({ bestDual, toGap, toSubopt, finalTestError: finalTest }, null, 1));
}

/** Sets the axis titles of a figure's spec (x on the shared encoding, y on every layer), and a log scale on x. */
function retitle(spec: object, x: string | undefined, y: string | undefined, logX: boolean): void {
  const s = spec as { encoding?: { x?: { title?: string; scale?: object } }; layer?: { encoding?: { y?: { title?: string } } }[] };
  if (x !== undefined && s.encoding?.x) s.encoding.x.title = x;
  if (logX && s.encoding?.x) s.encoding.x.scale = { type: 'log' };
  if (y !== undefined) for (const layer of s.layer ?? []) if (layer.encoding?.y?.title !== undefined) layer.encoding.y.title = y;
}
