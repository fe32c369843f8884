import { basename, dirname, extname } from 'node:path';
import { makeOutputDir, writeOutput } from '../io/output.js';
import { InputError } from '../core/errors.js';
import type { TopLevelSpec } from 'vega-lite';
import { Y_METRICS, buildFigure, hasSystemFonts, renderPng, renderSvg, type XAxis, type YMetric } from '../plot/figures.js';
import { LAMBDA_METRICS, lambdaFigure, readLambdaRows, type LambdaMetric } from '../plot/path-figure.js';
import { groupSeries, readTraces } from '../plot/traces.js';
import { htmlReport, reportRows, runNames } from '../plot/html.js';
import { value, type Args, type Command } from './args.js';
import { UsageError, report, type Io } from './common.js';
import { REPORT_OPTIONS } from './options.js';
import { checkCommandOutputs } from './session.js';

/** `gapbcfw plot TRACE...`: paper-style figures from JSONL traces. @module */

export const plotCommand: Command = {
  name: 'plot',
  summary: 'SVG/PNG figures from JSONL traces: duality gap against effective passes or time, path rows against lambda',
  description:
    'Draws paper-style convergence figures from JSONL traces (gapbcfw train --trace, or scripts/experiments/variants.ts):\n' +
    'one colour per method, the median over seeds as a line and the min-max over seeds as a band. TRACE is a .jsonl\n' +
    "file or a directory of them. A trace without 'method'/'seed' fields is the method named after its file, seed 1.\n" +
    'One colour, dash pattern and marker per method; the legend shows the traces\' method (solver, sampling, cache),\n' +
    'else the file name. Traces of different data sets are refused (plot them one figure each).',
  positionals: [{ name: 'TRACE', help: 'a .jsonl trace or a folder of them', input: 'file', variadic: true }],
  options: [
    { name: 'x', type: 'choice', value: 'X', choices: ['passes', 'effective', 'effective-passes', 'effectivePasses', 'time', 'seconds', 'lambda'], help: 'x axis (effective: oracle calls / n; lambda: rows of gapbcfw path --trace, decreasing)', default: 'effective' },
    { name: 'y', type: 'string', value: 'Y', help: `y axis: ${Y_METRICS.join(' | ')} (log scale for gap, gapEstimate, gapRatio and the residuals; gapRatio: the gap estimate over the exact gap of the same pass, the 2016 Fig. 1b); with --x lambda: ${LAMBDA_METRICS.join(' | ')}`, default: 'gap; testError with --x lambda' },
    { name: 'out', type: 'string', value: 'FILE', short: 'o', output: 'file', makeFolder: true, help: '.svg, .png, .json (the Vega-Lite spec) or .html (the report of --html)', default: 'plot.svg; report.html with --html' },
    { name: 'html', type: 'flag', help: 'a self-contained HTML report of the traces instead: duality gap (exact and estimated) against passes and time, primal and dual, test metrics, oracle calls per second (Vega-Lite, renderer inlined: opens offline)' },
    { name: 'title', type: 'string', value: 'T', help: 'figure title (default from the traces\' data and lambda, else "Y against X")' },
    { name: 'optimum', type: 'number', value: 'F', min: -1e300, max: 1e300, help: 'known optimum F*: --y residual / relativeResidual are F - F* and (F - F*) / F* of every event\'s objective (without it, a trace with no residual is an error)' },
    { name: 'width', type: 'integer', value: 'N', min: 50, max: 10000, help: 'plot area width in pixels (PNGs are drawn at 2x)', default: '520' },
    { name: 'height', type: 'integer', value: 'N', min: 50, max: 10000, help: 'plot area height in pixels', default: '340' },
    ...REPORT_OPTIONS,
  ],
  run: runPlot,
};

const X_ALIASES: Record<string, XAxis> = { passes: 'passes', effective: 'effective', 'effective-passes': 'effective', effectivePasses: 'effective', time: 'time', seconds: 'time' };

/** `gapbcfw plot TRACE... [--x ...] [--y ...] [--out FIG.svg|FIG.png|FIG.json] [--title T] [--json]`. */
async function runPlot(a: Args, io: Io): Promise<number> {
  const positionals = a.positionals;
  const v = { x: value.string(a, 'x'), y: value.string(a, 'y'), out: value.string(a, 'out'), title: value.string(a, 'title'), json: value.flag(a, 'json'), quiet: value.flag(a, 'quiet') };
  // The figure's folder is made when it is missing (figures/ of a run), once the figure is drawn.
  const summaryIo = checkCommandOutputs(a, io);
  const html = value.flag(a, 'html') || (v.out !== undefined && extname(v.out).toLowerCase() === '.html');
  const out = v.out ?? (html ? 'report.html' : 'plot.svg');
  const format = extname(out).toLowerCase().slice(1);
  if (html) return writeHtmlReport(a, positionals, out, summaryIo);
  if (format !== 'svg' && format !== 'png' && format !== 'json') throw new UsageError(`--out must end in .svg, .png, .json or .html, got '${out}'`);
  const width = value.number(a, 'width');
  const height = value.number(a, 'height');
  const warn = (message: string) => {
    if (!v.quiet) io.stderr.write(`plot: ${message}\n`);
  };
  if (v.x === 'lambda') {
    if (a.given.has('optimum')) throw new UsageError('--optimum applies to training traces (--y residual, relativeResidual), not to rows against --x lambda');
    // Path and grid-search rows (gapbcfw path --trace): a metric against lambda, the paper's Fig. 4.
    const y = (v.y ?? 'testError') as LambdaMetric;
    if (!LAMBDA_METRICS.includes(y)) throw new UsageError(`with --x lambda, --y must be one of ${LAMBDA_METRICS.join(', ')}, got '${v.y}'`);
    const rows = readLambdaRows(positionals);
    await writeFigure(lambdaFigure(rows, y, v.title, { width, height }), out, format, warn);
    report({ command: 'plot', out, format, x: 'lambda', y, rows: rows.length, methods: [...new Set(rows.map((r) => r.method))] }, v.json, summaryIo, `wrote ${out}`);
    return 0;
  }
  const x = v.x === undefined ? 'effective' : X_ALIASES[v.x]!;
  const y = (v.y ?? 'gap') as YMetric;
  if (!Y_METRICS.includes(y)) throw new UsageError(`--y must be one of ${Y_METRICS.join(', ')}, got '${v.y}'`);

  const traces = readTraces(positionals);
  // Nothing to draw is an error with one line of reason; the per-file warnings only matter next to a figure.
  if (traces.runs.length === 0) throw new InputError(`no events in ${traces.files.length === 1 ? traces.files[0] : `${traces.files.length} trace files`}`);
  for (const file of traces.emptyFiles) warn(`${file} has no events`);
  const optimum = value.number(a, 'optimum');
  if (optimum === 0) throw new UsageError('--optimum must be a finite non-zero number, got 0');
  if (optimum !== undefined && y !== 'residual' && y !== 'relativeResidual') throw new UsageError('--optimum applies to --y residual and --y relativeResidual');
  const figure = buildFigure(groupSeries(traces.runs), { x, y, optimum, ...(v.title !== undefined ? { title: v.title } : {}), ...(width ? { width } : {}), ...(height ? { height } : {}) });
  for (const method of figure.skipped) warn(`method '${method}' has no ${y === 'gap' ? 'exact gaps' : `'${y}' values`}; left out`);

  await writeFigure(figure.spec, out, format, warn);

  const series = figure.series.map((s) => ({ method: s.method, seeds: s.seeds, points: s.points }));
  const summary = {
    command: 'plot',
    out,
    format,
    x: figure.x,
    y: figure.y,
    title: figure.title,
    files: traces.files.length,
    runs: figure.series.reduce((k, s) => k + s.seeds.length, 0),
    series,
    skipped: figure.skipped.length > 0 ? figure.skipped : undefined,
  };
  if (v.json) report(summary, true, summaryIo, '');
  else {
    summaryIo.stdout.write(`wrote ${out} (${series.length} method${series.length === 1 ? '' : 's'}, ${summary.runs} run${summary.runs === 1 ? '' : 's'})\n`);
    for (const s of figure.series) {
      const last = s.band.at(-1)!;
      summaryIo.stdout.write(`  ${s.method}: seeds ${s.seeds.join(',')}, ${s.points} points, last median ${+last.median.toPrecision(4)} at ${figure.x} ${+last.x.toPrecision(4)}\n`);
    }
  }
  return 0;
}

/** `plot --html`: every run of the traces in one self-contained page (src/plot/html.ts). */
function writeHtmlReport(a: Args, positionals: readonly string[], out: string, io: Io): number {
  if (extname(out).toLowerCase() !== '.html') throw new UsageError(`--html writes an .html file, got --out '${out}'`);
  for (const flag of ['x', 'y', 'optimum', 'width', 'height']) if (a.given.has(flag)) throw new UsageError(`--${flag} does not apply to --html (the report has its own charts)`);
  const traces = readTraces(positionals);
  if (traces.runs.length === 0) throw new InputError(`no events in ${traces.files.length === 1 ? traces.files[0] : `${traces.files.length} trace files`}`);
  const names = runNames(traces.runs);
  const rows = traces.runs.flatMap((run, k) => reportRows(run.events, names[k]!));
  const title = value.string(a, 'title') ?? `Training runs: ${traces.files.map((f) => basename(f)).join(', ')}`;
  makeOutputDir(dirname(out), '--out');
  writeOutput(out, htmlReport({ title, rows }));
  report({ command: 'plot', out, format: 'html', files: traces.files.length, runs: traces.runs.length, events: rows.length }, value.flag(a, 'json'), io, `wrote ${out} (${traces.runs.length} run${traces.runs.length === 1 ? '' : 's'}, ${rows.length} events)`);
  return 0;
}

/** Renders a Vega-Lite spec to `out` as .svg, .png or the spec itself (.json). */
async function writeFigure(spec: TopLevelSpec, out: string, format: string, warn: (message: string) => void): Promise<void> {
  let bytes: string | Uint8Array;
  if (format === 'json') bytes = `${JSON.stringify(spec, null, 2)}\n`;
  else {
    const svg = await renderSvg(spec);
    if (format === 'svg') bytes = svg;
    else {
      if (!hasSystemFonts()) warn('no system fonts found: the PNG will have no text (write .svg instead, or install fonts)');
      bytes = renderPng(svg);
    }
  }
  makeOutputDir(dirname(out), '--out');
  writeOutput(out, bytes);
}
