import { mkdirSync } from 'node:fs';
import { dirname, extname } from 'node:path';
import { InputError } from '../core/errors.js';
import { writeOutput } from '../io/output.js';
import type { TopLevelSpec } from 'vega-lite';
import { X_AXES, Y_METRICS, buildFigure, hasSystemFonts, renderPng, renderSvg, type XAxis, type YMetric } from '../plot/figures.js';
import { LAMBDA_METRICS, lambdaFigure, readLambdaRows, type LambdaMetric } from '../plot/path-figure.js';
import { groupSeries, readTraces } from '../plot/traces.js';
import { UsageError, integer, number, parse, report, type Io } from './common.js';

export const PLOT_USAGE = `Usage: gapbcfw plot TRACE... [options]

Draws paper-style convergence figures from JSONL traces (gapbcfw train --trace, or
scripts/experiments/variants.ts): one colour per method, the median over seeds as a line and
the min-max over seeds as a band. TRACE is a .jsonl file or a directory of them. A trace
without 'method'/'seed' fields is the method named after its file, seed 1.

Options:
  --x passes|effective|time    x axis (default effective: oracle calls / n)
  --x lambda                   rows of gapbcfw path --trace (path vs grid search): --y testError (default) |
                               seconds | effectivePasses | gap | trueGap against lambda, decreasing
  --y gap|primal|dual|testError|trainError|gapEstimate|residual|relativeResidual
                               y axis (default gap: exact duality gaps only, log scale;
                               gapEstimate and the residuals of multiclass-fw traces also log scale,
                               the others linear)
  --optimum F                  known optimum F*: --y residual / relativeResidual are computed as F - F* and
                               (F - F*) / F* from every event's objective (without it, a trace with no
                               residual is an error)
  --out FILE                   .svg (default plot.svg), .png, or .json (the Vega-Lite spec)
  --title T                    figure title (default from the traces' data and lambda, else "Y against X")

One colour, dash pattern and marker per method; the legend shows the traces' method (solver, sampling,
cache), else the file name. Traces of different data sets are refused (plot them one figure each).
  --width N, --height N        plot area in pixels (default 520 x 340); PNGs are drawn at 2x
  --json                       last stdout line is a JSON summary
  --help`;

const PLOT_OPTIONS = {
  x: { type: 'string' },
  y: { type: 'string' },
  out: { type: 'string' },
  title: { type: 'string' },
  optimum: { type: 'string' },
  width: { type: 'string' },
  height: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const X_ALIASES: Record<string, XAxis> = { passes: 'passes', effective: 'effective', 'effective-passes': 'effective', effectivePasses: 'effective', time: 'time', seconds: 'time' };

/** `gapbcfw plot TRACE... [--x ...] [--y ...] [--out FIG.svg|FIG.png|FIG.json] [--title T] [--json]`. */
export async function runPlot(args: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parse(args, PLOT_OPTIONS);
  if (v.help) {
    io.stdout.write(`${PLOT_USAGE}\n`);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('plot takes one or more TRACE files or directories, e.g. gapbcfw plot runs/ --out gap.png');
  const out = v.out ?? 'plot.svg';
  const format = extname(out).toLowerCase().slice(1);
  if (format !== 'svg' && format !== 'png' && format !== 'json') throw new UsageError(`--out must end in .svg, .png or .json, got '${out}'`);
  const size = (name: 'width' | 'height') => number(v[name], name, (t) => integer(50)(t) && t <= 10000, 'an integer number of pixels in 50..10000');
  const width = size('width');
  const height = size('height');
  const warn = (message: string) => {
    if (!v.quiet) io.stderr.write(`plot: ${message}\n`);
  };
  if (v.x === 'lambda') {
    // Path and grid-search rows (gapbcfw path --trace): a metric against lambda, the paper's Fig. 4.
    const y = (v.y ?? 'testError') as LambdaMetric;
    if (!LAMBDA_METRICS.includes(y)) throw new UsageError(`with --x lambda, --y must be one of ${LAMBDA_METRICS.join(', ')}, got '${v.y}'`);
    const rows = readLambdaRows(positionals);
    await writeFigure(lambdaFigure(rows, y, v.title, { width, height }), out, format, warn);
    report({ command: 'plot', out, format, x: 'lambda', y, rows: rows.length, methods: [...new Set(rows.map((r) => r.method))] }, v.json ?? false, io, `wrote ${out}`);
    return 0;
  }
  const x = v.x === undefined ? 'effective' : Object.hasOwn(X_ALIASES, v.x) ? X_ALIASES[v.x] : undefined;
  if (x === undefined) throw new UsageError(`--x must be one of ${X_AXES.join(', ')} or lambda, got '${v.x}'`);
  const y = (v.y ?? 'gap') as YMetric;
  if (!Y_METRICS.includes(y)) throw new UsageError(`--y must be one of ${Y_METRICS.join(', ')}, got '${v.y}'`);

  const traces = readTraces(positionals);
  // Nothing to draw is an error with one line of reason; the per-file warnings only matter next to a figure.
  if (traces.runs.length === 0) throw new InputError(`no events in ${traces.files.length === 1 ? traces.files[0] : `${traces.files.length} trace files`}`);
  for (const file of traces.emptyFiles) warn(`${file} has no events`);
  const optimum = number(v.optimum, 'optimum', (t) => Number.isFinite(t) && t !== 0, 'a finite non-zero number');
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
  if (v.json) report(summary, true, io, '');
  else {
    io.stdout.write(`wrote ${out} (${series.length} method${series.length === 1 ? '' : 's'}, ${summary.runs} run${summary.runs === 1 ? '' : 's'})\n`);
    for (const s of figure.series) {
      const last = s.band.at(-1)!;
      io.stdout.write(`  ${s.method}: seeds ${s.seeds.join(',')}, ${s.points} points, last median ${+last.median.toPrecision(4)} at ${figure.x} ${+last.x.toPrecision(4)}\n`);
    }
  }
  return 0;
}

/** Renders a Vega-Lite spec to `out` as .svg, .png or the spec itself (.json). */
async function writeFigure(spec: TopLevelSpec, out: string, format: string, warn: (message: string) => void): Promise<void> {
  let bytes: string | Buffer;
  if (format === 'json') bytes = `${JSON.stringify(spec, null, 2)}\n`;
  else {
    const svg = await renderSvg(spec);
    if (format === 'svg') bytes = svg;
    else {
      if (!hasSystemFonts()) warn('no system fonts found: the PNG will have no text (write .svg instead, or install fonts)');
      bytes = renderPng(svg);
    }
  }
  mkdirSync(dirname(out), { recursive: true });
  writeOutput(out, bytes);
}
