import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { InputError } from '../core/errors.js';
import { importPeer, requirePeer } from '../io/peers.js';
import type { TraceEvent, TraceRun, TraceSeries } from './traces.js';

/**
 * Paper-style convergence figures (Osokin et al. 2016, "Minding the Gaps", Figures 1 and 3) from traces:
 * one colour and dash pattern per method (the figure survives black-and-white print), the median over seeds
 * as a line and the min-max over seeds as a shaded band. Runs of different data sets are not drawn together.
 *
 * Common x grid. Seeds of one method measure at different x (with caching, effective passes differ per
 * seed; times always differ). For each method the grid is the union of the x values of all its seeds, and
 * every seed's curve is step-interpolated onto it (last observation carried forward): at grid point x a
 * seed's value is its latest measurement at or before x. A seed contributes nothing before its first
 * measurement, and keeps its final value after its last one (a run that stopped keeps its last certificate,
 * so early-stopping seeds do not drop out of the median). The median of an even number of values is the mean
 * of the middle two. Lines and bands are drawn as steps (`step-after`), exactly what was computed.
 *
 * Rendering needs the optional heavy modules only when called: vega and vega-lite are imported by
 * renderSvg, @resvg/resvg-js is loaded by renderPng.
 */

/** What goes on the x axis: block passes, effective passes (oracle calls / n) or training seconds. */
export type XAxis = 'passes' | 'effective' | 'time';
/** What goes on the y axis. `gap` uses exact duality gaps only; `gapEstimate` is the sum of block estimates. */
export type YMetric = 'gap' | 'primal' | 'dual' | 'testError' | 'trainError' | 'gapEstimate' | 'gapRatio' | 'residual' | 'relativeResidual';

export const X_AXES: readonly XAxis[] = ['effective', 'passes', 'time'];
export const Y_METRICS: readonly YMetric[] = ['gap', 'primal', 'dual', 'testError', 'trainError', 'gapEstimate', 'gapRatio', 'residual', 'relativeResidual'];

const X_TITLE: Record<XAxis, string> = { passes: 'passes', effective: 'effective passes', time: 'time (s)' };
const Y_TITLE: Record<YMetric, string> = {
  gap: 'duality gap',
  primal: 'primal objective',
  dual: 'dual objective',
  testError: 'test error',
  trainError: 'training error',
  gapEstimate: 'duality gap estimate',
  gapRatio: 'gap estimate / exact gap',
  residual: 'objective residual F - F*',
  relativeResidual: 'relative residual (F - F*) / F*',
};
/** Metrics drawn on a log scale (positive values only). */
export const LOG_METRICS: ReadonlySet<YMetric> = new Set<YMetric>(['gap', 'gapEstimate', 'gapRatio', 'residual', 'relativeResidual']);

/** A measurement of one run. */
export interface Point {
  x: number;
  y: number;
}

/** One point of the aggregated curve of a method. */
export interface BandPoint {
  x: number;
  median: number;
  min: number;
  max: number;
  /** Number of seeds with a value at x (seeds that have not measured yet are left out). */
  seeds: number;
}

/** An aggregated method as drawn. */
export interface FigureSeries {
  method: string;
  /** Seeds with at least one point, ascending. */
  seeds: number[];
  /** Number of grid points of the curve. */
  points: number;
  band: BandPoint[];
}

export interface FigureOptions {
  /** x axis; default 'effective'. */
  x?: XAxis;
  /** y axis; default 'gap'. */
  y?: YMetric;
  /**
   * Figure title; default derived from the runs' `data` and `lambda` fields, else "Y against X".
   */
  title?: string;
  /**
   * Known optimum F*: `residual` = F - F* and `relativeResidual` = (F - F*) / F* are computed from each
   * event's objective (`objective`, else `primal`), replacing the traces' own. Without it, a run with no
   * residual in its trace is an error for those metrics (not a silently dropped run).
   */
  optimum?: number;
  /** Plot area in CSS pixels; defaults 520 x 340. */
  width?: number;
  height?: number;
}

export interface Figure {
  /** The Vega-Lite specification (data inlined). */
  spec: TopLevelSpec;
  x: XAxis;
  y: YMetric;
  title?: string;
  /** Methods with at least one point, in order of first appearance. */
  series: FigureSeries[];
  /** Methods without a single point for the metric (not drawn). */
  skipped: string[];
}

/** The x value of an event. */
export function xOf(event: TraceEvent, x: XAxis): number {
  return x === 'passes' ? event.pass : x === 'effective' ? event.effectivePasses : event.seconds;
}

/**
 * The y value of an event, or undefined when the event does not measure it (for `gap`: not exact, or <= 0).
 * With `optimum`, the residuals are computed from the event's objective (see FigureOptions.optimum).
 */
export function yOf(event: TraceEvent, y: YMetric, optimum?: number): number | undefined {
  if (y === 'gap' && !event.gapIsExact) return undefined;
  const objective = typeof event.objective === 'number' ? event.objective : event.primal;
  const v =
    optimum !== undefined && (y === 'residual' || y === 'relativeResidual')
      ? objective === undefined
        ? undefined
        : y === 'residual'
          ? objective - optimum
          : (objective - optimum) / optimum
      : event[y];
  if (typeof v !== 'number' || !Number.isFinite(v)) return undefined;
  if (LOG_METRICS.has(y) && !(v > 0)) return undefined;
  return v;
}

/**
 * The quality of the gap estimates (2016 Fig. 1b): for every exact gap a run logged (a monitor's or a scheduled
 * check's), the estimate of the same iterate (the pass event just before it, at the same pass) over that gap,
 * as events with a `gapRatio` field.
 */
function gapRatioEvents(events: readonly TraceEvent[]): TraceEvent[] {
  const out: TraceEvent[] = [];
  let estimate: { pass: number; value: number } | undefined;
  for (const e of events) {
    if (typeof e.gapEstimate === 'number' && !e.gapIsExact) estimate = { pass: e.pass, value: e.gapEstimate };
    else if (e.gapIsExact && typeof e.gap === 'number' && e.gap > 0 && estimate?.pass === e.pass) out.push({ ...e, gapRatio: estimate.value / e.gap });
  }
  return out;
}

/**
 * The curve of one run: its measurements of `y` against `x`, sorted by x (stable); of several measurements
 * at the same x the last one in the file is kept.
 */
export function runCurve(run: Pick<TraceRun, 'events'>, x: XAxis = 'effective', y: YMetric = 'gap', optimum?: number): Point[] {
  const points: Point[] = [];
  for (const event of y === 'gapRatio' ? gapRatioEvents(run.events) : run.events) {
    const v = yOf(event, y, optimum);
    if (v !== undefined) points.push({ x: xOf(event, x), y: v });
  }
  points.sort((a, b) => a.x - b.x);
  const out: Point[] = [];
  for (const p of points) {
    if (out.length > 0 && out[out.length - 1]!.x === p.x) out[out.length - 1] = p;
    else out.push(p);
  }
  return out;
}

/** Median of a non-empty array (mean of the middle two when the length is even). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new InputError('median of an empty list');
  const s = [...values].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 === 1 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}

/**
 * Aggregates the curves of several seeds on the union of their x values by step interpolation (see the
 * module comment): median, min and max of the seeds that have measured at or before each x.
 * Every curve must be sorted by x.
 */
export function aggregateCurves(curves: readonly (readonly Point[])[]): BandPoint[] {
  const grid = [...new Set(curves.flatMap((c) => c.map((p) => p.x)))].sort((a, b) => a - b);
  const cursor = curves.map(() => -1);
  const band: BandPoint[] = [];
  for (const x of grid) {
    const values: number[] = [];
    curves.forEach((curve, s) => {
      let k = cursor[s]!;
      while (k + 1 < curve.length && curve[k + 1]!.x <= x) k++;
      cursor[s] = k;
      if (k >= 0) values.push(curve[k]!.y);
    });
    band.push({ x, median: median(values), min: Math.min(...values), max: Math.max(...values), seeds: values.length });
  }
  return band;
}

/** Title from the runs' `data` and `lambda` fields: "DATA, λ = L" with the parts that all runs share. */
export function deriveTitle(runs: readonly Pick<TraceRun, 'data' | 'lambda'>[]): string | undefined {
  const datas = new Set(runs.map((r) => r.data));
  const lambdas = new Set(runs.map((r) => r.lambda));
  const parts: string[] = [];
  const data = datas.size === 1 ? [...datas][0] : undefined;
  if (data !== undefined) parts.push(shortData(data));
  const lambda = lambdas.size === 1 ? [...lambdas][0] : undefined;
  if (lambda !== undefined) parts.push(`λ = ${formatNumber(lambda)}`);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** `ocr:../shared/data/ocr/letter.data.gz --split small` -> `ocr:letter.data.gz --split small`. */
function shortData(data: string): string {
  const options = data.indexOf(' --');
  const spec = options >= 0 ? data.slice(0, options) : data;
  const colon = spec.indexOf(':');
  const kind = colon >= 0 ? spec.slice(0, colon + 1) : '';
  const path = colon >= 0 ? spec.slice(colon + 1) : spec;
  const base = path.split(/[\\/]/).filter((s) => s !== '').at(-1) ?? '';
  return kind + base + (options >= 0 ? data.slice(options) : '');
}

function formatNumber(x: number): string {
  return String(+x.toPrecision(4));
}

/** Curves with at most this many points get markers (when all curves of the figure do). */
const MARKER_MAX_POINTS = 40;

/** Fonts tried in order; resvg picks the first installed one, browsers likewise. */
const FONT = 'Helvetica, Arial, DejaVu Sans, Liberation Sans, Noto Sans, sans-serif';

/**
 * Builds the figure of `series` (see groupSeries): the Vega-Lite spec and the aggregated curves.
 * Throws an InputError when no run has a single point for the metric.
 */
export function buildFigure(series: readonly TraceSeries[], options: FigureOptions = {}): Figure {
  const x = options.x ?? 'effective';
  const y = options.y ?? 'gap';
  if (!X_AXES.includes(x)) throw new InputError(`x axis must be one of ${X_AXES.join(', ')}, got '${x}'`);
  if (!Y_METRICS.includes(y)) throw new InputError(`y axis must be one of ${Y_METRICS.join(', ')}, got '${y}'`);
  const width = options.width ?? 520;
  const height = options.height ?? 340;
  for (const [name, v] of [['width', width], ['height', height]] as const) {
    if (!(Number.isFinite(v) && v >= 50 && v <= 10000)) throw new InputError(`${name} must be between 50 and 10000 pixels, got ${v}`);
  }
  const optimum = options.optimum;
  if (optimum !== undefined && !(Number.isFinite(optimum) && optimum !== 0)) throw new InputError(`optimum must be a finite non-zero number, got ${optimum}`);
  checkOneDataSet(series.flatMap((s) => s.runs));
  const drawn: FigureSeries[] = [];
  const skipped: string[] = [];
  const runsDrawn: TraceRun[] = [];
  for (const s of series) {
    const curves: Point[][] = [];
    const seeds: number[] = [];
    for (const run of s.runs) {
      const curve = runCurve(run, x, y, optimum);
      if (curve.length === 0 && optimum === undefined && (y === 'residual' || y === 'relativeResidual')) {
        throw new InputError(`${run.file} (method '${run.method}') has no '${y}' values: its run had no known optimum; give the optimum F* (plot --optimum F*) to compute F - F* from the objective`);
      }
      if (curve.length === 0) continue;
      curves.push(curve);
      seeds.push(run.seed);
      runsDrawn.push(run);
    }
    if (curves.length === 0) {
      skipped.push(s.method);
      continue;
    }
    const band = aggregateCurves(curves);
    drawn.push({ method: s.method, seeds: [...seeds].sort((a, b) => a - b), points: band.length, band });
  }
  if (drawn.length === 0) {
    const runs = series.reduce((k, s) => k + s.runs.length, 0);
    throw new InputError(
      y === 'gap'
        ? `no exact duality gaps > 0 to plot in ${runs} run(s) (exact gaps are logged every --gap-check passes; try --y gapEstimate or --y primal)`
        : `no '${y}' values${LOG_METRICS.has(y) ? ' > 0' : ''} to plot in ${runs} run(s)`,
    );
  }
  const title = options.title ?? deriveTitle(runsDrawn) ?? `${Y_TITLE[y]} against ${X_TITLE[x]}`;
  const rows = drawn.flatMap((s) => s.band.map((p) => ({ method: s.method, x: p.x, median: p.median, min: p.min, max: p.max, seeds: p.seeds })));
  const log = LOG_METRICS.has(y);
  const yScale = log ? { type: 'log' as const } : { zero: false };
  const methods = drawn.map((s) => s.method);
  // Markers at the grid points when every curve is sparse (a curve of one point is otherwise invisible).
  const markers = drawn.every((s) => s.points <= MARKER_MAX_POINTS);
  const color = { field: 'method', type: 'nominal' as const, title: 'method', scale: { domain: methods } };
  // Dash patterns as well as colours, so that methods stay apart in black and white.
  const strokeDash = { field: 'method', type: 'nominal' as const, title: 'method', scale: { domain: methods, range: DASHES } };
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    description: `${Y_TITLE[y]} against ${X_TITLE[x]}: median over seeds (line), min-max over seeds (band)`,
    background: 'white',
    width,
    height,
    ...(title !== undefined && title !== '' ? { title: { text: title } } : {}),
    config: {
      font: FONT,
      axis: { labelFontSize: 12, titleFontSize: 13, titleFontWeight: 'normal' },
      legend: { labelFontSize: 12, titleFontSize: 12, labelLimit: 320, symbolType: 'stroke', symbolStrokeWidth: 3, symbolSize: 300, symbolOpacity: 1 },
      title: { fontSize: 15, fontWeight: 'normal' },
    },
    data: { values: rows },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: X_TITLE[x] },
    },
    layer: [
      {
        mark: { type: 'area', interpolate: 'step-after', opacity: 0.2 },
        encoding: {
          y: { field: 'min', type: 'quantitative', scale: yScale, title: Y_TITLE[y] },
          y2: { field: 'max' },
          color,
        },
      },
      {
        mark: { type: 'line', interpolate: 'step-after', strokeWidth: 2 },
        encoding: {
          y: { field: 'median', type: 'quantitative', scale: yScale, title: Y_TITLE[y] },
          color,
          strokeDash,
        },
      },
      ...(markers
        ? [
            {
              mark: { type: 'point' as const, filled: true, size: 28, opacity: 1 },
              encoding: { y: { field: 'median', type: 'quantitative' as const, scale: yScale }, color },
            },
          ]
        : []),
    ],
  };
  return { spec, x, y, ...(title !== undefined ? { title } : {}), series: drawn, skipped };
}

/** Dash patterns of the methods' lines, in order (solid first). */
const DASHES: number[][] = [[1, 0], [8, 4], [2, 3], [8, 3, 2, 3], [12, 4], [4, 2], [8, 3, 2, 3, 2, 3], [1, 4]];

/**
 * A trace's data spec with its path resolved where it exists here (`KIND:PATH[ --options]`): one data set reached
 * through a symbolic link, or through `..`, is one data set.
 */
function canonicalData(data: string): string {
  const options = data.indexOf(' --');
  const spec = options >= 0 ? data.slice(0, options) : data;
  const colon = spec.indexOf(':');
  const path = spec.slice(colon + 1);
  if (colon < 0 || path === '' || !existsSync(path)) return data;
  return spec.slice(0, colon + 1) + realpathSync(path) + (options >= 0 ? data.slice(options) : '');
}

/** Refuses runs of different data sets in one figure (their curves are not comparable); runs that do not record their data are not checked. */
function checkOneDataSet(runs: readonly TraceRun[]): void {
  const byData = new Map<string, { data: string; file: string }>();
  for (const run of runs) {
    if (run.data === undefined) continue;
    const key = canonicalData(run.data);
    if (!byData.has(key)) byData.set(key, { data: run.data, file: run.file });
  }
  if (byData.size > 1) {
    const seen = [...byData.values()];
    // Short names where they tell the sets apart, else the whole specs.
    const short = new Set(seen.map((v) => shortData(v.data))).size === seen.length;
    const list = seen.map((v) => `${short ? shortData(v.data) : v.data} (${v.file})`).join(', ');
    throw new InputError(`the traces come from ${byData.size} different data sets: ${list}; plot each data set in its own figure`);
  }
}

/** Compiles a Vega-Lite spec and renders it to an SVG string (headless: vega's View with renderer 'none'). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, vegaLite] = await Promise.all([importPeer<typeof import('vega')>('vega', 'drawing figures'), importPeer<typeof import('vega-lite')>('vega-lite', 'drawing figures')]);
  const compiled = vegaLite.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export interface PngOptions {
  /** Output width in pixels (the height follows the aspect ratio). Overrides `scale`. */
  width?: number;
  /** Zoom factor over the SVG's size; default 2 (sharp on high-density screens and in papers). */
  scale?: number;
  /** Extra font files (.ttf/.otf) for the text, e.g. where the system has no fonts. */
  fontFiles?: string[];
}

type ResvgModule = typeof import('@resvg/resvg-js');
let resvgModule: ResvgModule | undefined;

/** Renders an SVG string to a PNG with @resvg/resvg-js, using the system fonts (plus `fontFiles`). */
export function renderPng(svg: string, options: PngOptions = {}): Uint8Array {
  resvgModule ??= requirePeer<ResvgModule>('@resvg/resvg-js', 'rendering figures to PNG');
  const { width, scale = 2 } = options;
  if (width !== undefined && !(Number.isInteger(width) && width >= 1 && width <= 20000)) throw new InputError(`PNG width must be an integer in 1..20000, got ${width}`);
  if (!(Number.isFinite(scale) && scale > 0 && scale <= 20)) throw new InputError(`PNG scale must be in (0, 20], got ${scale}`);
  const resvg = new resvgModule.Resvg(svg, {
    fitTo: width !== undefined ? { mode: 'width', value: width } : { mode: 'zoom', value: scale },
    background: 'white',
    font: { loadSystemFonts: true, ...(options.fontFiles ? { fontFiles: options.fontFiles } : {}) },
  });
  return resvg.render().asPng();
}

/**
 * Whether any font file (.ttf, .otf, .ttc) is in the usual system font folders. Without one, resvg draws a
 * PNG without text (the SVG is unaffected): the CLI warns.
 */
export function hasSystemFonts(): boolean {
  const dirs = [
    '/usr/share/fonts',
    '/usr/local/share/fonts',
    join(homedir(), '.fonts'),
    join(homedir(), '.local/share/fonts'),
    '/System/Library/Fonts',
    '/Library/Fonts',
    join(process.env.WINDIR ?? 'C:\\Windows', 'Fonts'),
  ];
  const search = (dir: string, depth: number): boolean => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const e of entries) {
      if (e.isFile() && /\.(ttf|otf|ttc)$/i.test(e.name)) return true;
    }
    return depth > 0 && entries.some((e) => (e.isDirectory() || e.isSymbolicLink()) && search(join(dir, e.name), depth - 1));
  };
  return dirs.some((d) => existsSync(d) && search(d, 4));
}
