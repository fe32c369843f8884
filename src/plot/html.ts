/**
 * Training runs in a browser: one HTML page of Vega-Lite charts of JSONL traces (duality gap exact and estimated
 * against passes and time, primal and dual, test metrics, oracle calls per second), with vega and vega-lite inlined
 * from node_modules, so that the page needs no network. `gapbcfw plot --html` writes it with the traces' rows in it;
 * `gapbcfw watch` serves it with a live feed ({@link TraceFollower} rows over server-sent events) that the page adds
 * to its charts as the trace grows.
 * @module
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { methodFromFile, parseTrace, type TraceEvent, type TraceRun } from './traces.js';

/** One row of the charts: a trace event with its run's name and, at checks, the oracle calls per second since the last. */
export type ReportRow = TraceEvent & { run: string; oracleCallsPerSecond?: number };

/** Fields the test-metrics chart draws, when the events have them. */
const METRICS = ['testError', 'testLoss', 'trainError', 'trainLoss', 'f1', 'aer', 'pcp', 'pck', 'accuracy'] as const;

/**
 * The rows of a run's events: `run` names it, and each check (an exact gap, or SSG's primal) gets the oracle calls
 * per second of the training time since the previous check (single passes are too short to time, and a cached pass
 * is mostly free steps); the first check counts from the start. Monitor events cost no training time and get none.
 * `last` holds the run's previous check (a live trace: the follower's) and is updated.
 */
export function reportRows(events: readonly TraceEvent[], run: string, last: { check?: TraceEvent } = {}): ReportRow[] {
  return events.map((e) => {
    const row: ReportRow = { ...e, run };
    if (e.monitor || !(e.gapIsExact || e.primal !== undefined)) return row;
    const from = last.check ?? { oracleCalls: 0, seconds: 0 };
    if (e.seconds > from.seconds) row.oracleCallsPerSecond = (e.oracleCalls - from.oracleCalls) / (e.seconds - from.seconds);
    last.check = e;
    return row;
  });
}

/**
 * Names of runs for the charts' legend, one per run and all different: the method, then as needed the data set,
 * lambda, the seed and the file.
 */
export function runNames(runs: readonly Pick<TraceRun, 'method' | 'seed' | 'data' | 'lambda' | 'file'>[]): string[] {
  const parts = [(r: (typeof runs)[number]) => r.data, (r: (typeof runs)[number]) => (r.lambda === undefined ? undefined : `λ = ${+r.lambda.toPrecision(4)}`), (r: (typeof runs)[number]) => `seed ${r.seed}`, (r: (typeof runs)[number]) => basename(r.file)];
  let names = runs.map((r) => r.method);
  for (const part of parts) {
    if (new Set(names).size === names.length) break;
    names = names.map((name, k) => {
      const clash = names.filter((n) => n === name).length > 1;
      const extra = part(runs[k]!);
      return clash && extra !== undefined ? `${name}, ${extra}` : name;
    });
  }
  return names;
}

const WIDTH = 460;
const HEIGHT = 240;

/** A line chart of the rows (data `events`) folded over `fields`: x, a value per field, colour by run, dash by field. */
function foldedChart(title: string, x: { field: string; title: string }, fields: readonly string[], y: { title: string; log?: boolean }, label: string, faint?: string): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    width: WIDTH,
    height: HEIGHT,
    data: { name: 'events' },
    transform: [
      { fold: [...fields], as: ['field', 'value'] },
      { filter: y.log ? 'isValid(datum.value) && datum.value > 0' : 'isValid(datum.value) && isFinite(datum.value)' },
      { calculate: label, as: 'quantity' },
    ],
    mark: { type: 'line', point: { size: 16 }, interpolate: 'linear' },
    encoding: {
      x: { field: x.field, type: 'quantitative', title: x.title },
      y: { field: 'value', type: 'quantitative', title: y.title, scale: y.log ? { type: 'log' } : { zero: false } },
      color: { field: 'run', type: 'nominal', title: 'run' },
      strokeDash: { field: 'quantity', type: 'nominal', title: null, legend: { symbolType: 'stroke', symbolStrokeColor: '#333', symbolStrokeWidth: 2, symbolSize: 400 } },
      detail: { field: 'quantity' },
      // A faint quantity (the gap estimate, refreshed only by oracle calls and exact passes) stays behind the others.
      ...(faint ? { opacity: { condition: { test: `datum.quantity === '${faint}'`, value: 0.35 }, value: 1 } } : {}),
      tooltip: [
        { field: 'run', type: 'nominal' },
        { field: 'quantity', type: 'nominal' },
        { field: 'pass', type: 'quantitative' },
        { field: 'seconds', type: 'quantitative', format: '.1f' },
        { field: 'value', type: 'quantitative', format: '.4g' },
      ],
    },
  };
}

/** Exact gap, the gap of an uncertified check, or the estimate. */
const GAP_LABEL = "datum.field === 'gap' ? (datum.gapIsExact ? 'exact gap' : 'gap (not certified)') : 'estimated gap'";

/** The Vega-Lite specs of the report, each reading the named data `events` (rows of {@link reportRows}). */
export function reportSpecs(): { id: string; spec: TopLevelSpec }[] {
  return [
    { id: 'gap-passes', spec: foldedChart('Duality gap against passes', { field: 'pass', title: 'pass' }, ['gap', 'gapEstimate'], { title: 'duality gap', log: true }, GAP_LABEL, 'estimated gap') },
    { id: 'gap-time', spec: foldedChart('Duality gap against time', { field: 'seconds', title: 'training seconds' }, ['gap', 'gapEstimate'], { title: 'duality gap', log: true }, GAP_LABEL, 'estimated gap') },
    { id: 'objectives', spec: foldedChart('Primal and dual objectives', { field: 'pass', title: 'pass' }, ['primal', 'dual'], { title: 'objective' }, 'datum.field') },
    { id: 'metrics', spec: foldedChart('Test metrics', { field: 'pass', title: 'pass' }, METRICS, { title: 'value' }, 'datum.field') },
    { id: 'throughput', spec: foldedChart('Oracle calls per second', { field: 'seconds', title: 'training seconds' }, ['oracleCallsPerSecond'], { title: 'oracle calls / s' }, "'oracle calls / s'") },
  ];
}

/** The inlined renderers: vega and vega-lite's browser builds from node_modules (no CDN, no network). */
function renderers(): string {
  const require = createRequire(import.meta.url);
  const build = (pkg: string, file: string) => readFileSync(join(dirname(require.resolve(pkg)), file), 'utf8');
  // A script's text ends at the first `</script`: written `<\/script`, which JavaScript reads the same.
  const inline = (js: string) => `<script>${js.replace(/<\/script/gi, '<\\/script')}</script>`;
  return inline(build('vega', 'vega.min.js')) + inline(build('vega-lite', 'vega-lite.min.js'));
}

/** JSON that is safe inside a `<script type="application/json">` element. */
const scriptJson = (x: unknown) => JSON.stringify(x).replace(/</g, '\\u003c');
const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * The page: its title, the charts of {@link reportSpecs} over `rows`, a status line (events, last pass, last exact
 * gap) and, with `live`, an EventSource on `live` (relative URL) whose messages are JSON arrays of new rows (or
 * `{ "reset": true }` when the trace started over). `body[data-ready]` is set once the first rows are drawn, and
 * `body[data-drawn]` counts the rows drawn so far.
 */
export function htmlReport(options: { title: string; rows: readonly ReportRow[]; live?: string }): string {
  const specs = reportSpecs();
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(options.title)}</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
  h1 { font-size: 1.3em; margin: 0 0 0.3em; }
  #status { color: #555; margin-bottom: 1em; font-variant-numeric: tabular-nums; }
  #last { font-family: ui-monospace, monospace; font-size: 0.8em; color: #555; white-space: pre-wrap; word-break: break-all; }
  .charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
</style>
</head>
<body>
<h1>${escapeHtml(options.title)}</h1>
<div id="status">loading</div>
<div class="charts">${specs.map((s) => `<div class="chart" id="${s.id}"></div>`).join('')}</div>
<p>Last event:</p>
<div id="last"></div>
<script type="application/json" id="specs">${scriptJson(specs)}</script>
<script type="application/json" id="rows">${scriptJson(options.rows)}</script>
${renderers()}
<script>
(async () => {
  const specs = JSON.parse(document.getElementById('specs').textContent);
  const status = document.getElementById('status');
  const last = document.getElementById('last');
  // Canvas: thousands of points redraw quickly, and new rows are drawn at most once a second (a long run's feed).
  const views = specs.map(({ id, spec }) => new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'canvas', container: '#' + id, hover: true }));
  let pending = [];
  let drawing = Promise.resolve();
  let drawnAt = 0;
  const draw = () => {
    drawing = drawing.then(async () => {
      if (pending.length === 0) return;
      const wait = drawnAt + 1000 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const rows = pending;
      pending = [];
      await Promise.all(views.map((v) => v.change('events', vega.changeset().insert(rows)).runAsync()));
      drawnAt = Date.now();
      document.body.dataset.drawn = String(count - pending.length);
    });
    return drawing;
  };
  let count = 0;
  let exact;
  let latest;
  const show = () => {
    status.textContent = count === 0 ? 'no events yet' :
      count + ' events; pass ' + latest.pass + ', ' + latest.seconds.toFixed(1) + ' s' +
      (exact ? '; last exact gap ' + exact.gap.toPrecision(4) + ' at pass ' + exact.pass : '') +
      (typeof latest.gapEstimate === 'number' ? '; estimate ' + latest.gapEstimate.toPrecision(4) : '') +
      ${options.live ? "(live ? '; live' : '; the feed ended')" : "''"};
    last.textContent = latest ? JSON.stringify(latest) : '';
  };
  const add = (rows) => {
    for (const r of rows) {
      count++;
      latest = r;
      if (r.gapIsExact && typeof r.gap === 'number') exact = r;
    }
    pending.push(...rows);
    show();
    return draw();
  };
  const reset = () => {
    count = 0;
    exact = latest = undefined;
    pending = [];
    drawing = drawing.then(() => Promise.all(views.map((v) => v.change('events', vega.changeset().remove(() => true)).runAsync())));
    show();
    return drawing;
  };
  let live = ${options.live ? 'true' : 'false'};
  await add(JSON.parse(document.getElementById('rows').textContent));
  document.body.dataset.ready = 'true';
  if (live) {
    const feed = new EventSource(${JSON.stringify(options.live ?? '')});
    feed.onmessage = (m) => {
      const data = JSON.parse(m.data);
      if (Array.isArray(data)) add(data);
      else reset();
    };
    feed.onerror = () => { live = feed.readyState !== EventSource.CLOSED; show(); };
  }
})().catch((e) => { document.getElementById('status').textContent = 'error: ' + e.message; console.error(e); });
</script>
</body>
</html>
`;
  return page;
}

/**
 * Follows a JSONL trace as it grows (`gapbcfw watch`): each {@link TraceFollower.poll} parses the complete lines
 * added since the last (reading only the new bytes) and returns their rows; when the file got shorter (a new run
 * overwrote it), it starts over and says so (`reset`). A malformed line is a FormatError naming the file and line.
 */
export class TraceFollower {
  private offset = 0;
  private line = 0;
  private pending: Buffer = Buffer.alloc(0);
  /** The last check of each run, for the oracle calls per second. */
  private readonly history = new Map<string, { check?: TraceEvent }>();

  constructor(readonly file: string) {}

  poll(): { reset: boolean; rows: ReportRow[] } {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { reset: false, rows: [] }; // not written yet
      throw e;
    }
    let added: Buffer;
    let reset = false;
    try {
      const size = fstatSync(fd).size;
      if (size < this.offset) {
        reset = true;
        this.offset = 0;
        this.line = 0;
        this.pending = Buffer.alloc(0);
        this.history.clear();
      }
      added = Buffer.alloc(size - this.offset);
      const read = readSync(fd, added, 0, added.length, this.offset);
      added = added.subarray(0, read);
      this.offset += read;
    } finally {
      closeSync(fd);
    }
    // Whole lines only (a line being written stays pending, and so do the bytes of a split UTF-8 character).
    const bytes = Buffer.concat([this.pending, added]);
    const end = bytes.lastIndexOf(0x0a) + 1;
    this.pending = Buffer.from(bytes.subarray(end));
    const lines = bytes.subarray(0, end).toString('utf8').split('\n').slice(0, -1);
    const first = this.line;
    this.line += lines.length;
    // parseTrace numbers lines from 1: leading newlines give it the numbers of the file.
    const events = parseTrace('\n'.repeat(first) + lines.join('\n'), this.file);
    const fallback = methodFromFile(this.file);
    const rows: ReportRow[] = [];
    for (const e of events) {
      const run = e.seed === undefined || e.seed === 1 ? (e.method ?? fallback) : `${e.method ?? fallback}, seed ${e.seed}`;
      if (!this.history.has(run)) this.history.set(run, {});
      rows.push(...reportRows([e], run, this.history.get(run)));
    }
    return { reset, rows };
  }
}
