import { readdirSync, statSync } from 'node:fs';
import { inputFailure, readInputText } from '../io/input.js';
import { basename, extname, join } from 'node:path';
import { FormatError, InputError } from '../core/errors.js';

/**
 * Reading training traces (JSONL: one progress event per line) for `gapbcfw plot`.
 *
 * A line is a JSON object with at least `pass`, `effectivePasses`, `oracleCalls`, `seconds` (finite numbers)
 * and `gapIsExact` (boolean); optionally `gap`, `primal`, `dual`, `gapEstimate`, `testError`, `trainError`,
 * `cacheHits` (numbers, `null` read as absent: JSON writes NaN and Infinity as null), `monitor` (boolean),
 * and, in traces of `scripts/experiments/variants.ts`, `method` (string), `seed` (integer), `lambda`, `data`.
 * A line without `method` belongs to the method named after the file (base name without `.jsonl`), one
 * without `seed` to seed 1. One file may hold several runs (e.g. `cat *.jsonl > all.jsonl`): lines are
 * grouped by (method, seed), in file order.
 */

/** One event of a trace, validated. Unknown fields are kept. */
export interface TraceEvent {
  pass: number;
  effectivePasses: number;
  oracleCalls: number;
  seconds: number;
  gapIsExact: boolean;
  gap?: number;
  primal?: number;
  dual?: number;
  gapEstimate?: number;
  testError?: number;
  trainError?: number;
  cacheHits?: number;
  /** True for events logged by the experiment monitor (not counted in time or effective passes). */
  monitor?: boolean;
  method?: string;
  seed?: number;
  lambda?: number;
  data?: string;
  [field: string]: unknown;
}

/** The events of one (method, seed) run, in file order. */
export interface TraceRun {
  method: string;
  seed: number;
  /** The file the events came from. */
  file: string;
  /** `lambda` and `data` of the first event that has them. */
  lambda?: number;
  data?: string;
  events: TraceEvent[];
}

/** All runs of one method, seeds ascending. */
export interface TraceSeries {
  method: string;
  runs: TraceRun[];
}

/** The outcome of reading trace files. */
export interface TraceSet {
  /** The JSONL files read (directories expanded), in order. */
  files: string[];
  /** Files without a single event. */
  emptyFiles: string[];
  /** Runs in order of first appearance. */
  runs: TraceRun[];
}

const REQUIRED_NUMBERS = ['pass', 'effectivePasses', 'oracleCalls', 'seconds'] as const;
const OPTIONAL_NUMBERS = ['gap', 'primal', 'dual', 'gapEstimate', 'testError', 'trainError', 'cacheHits', 'lambda'] as const;

/**
 * Expands the arguments of `gapbcfw plot`: a file is taken as is, a directory contributes its `*.jsonl`
 * files (not recursive, sorted by name). Throws an InputError for a missing path or a directory without traces.
 */
export function listTraceFiles(paths: readonly string[]): string[] {
  if (paths.length === 0) throw new InputError('no trace files given');
  const files: string[] = [];
  for (const path of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch (e) {
      throw inputFailure(e, path);
    }
    if (!isDir) {
      files.push(path);
      continue;
    }
    const inside = readdirSync(path)
      .filter((name) => name.endsWith('.jsonl'))
      .sort()
      .map((name) => join(path, name))
      .filter((file) => statSync(file).isFile());
    if (inside.length === 0) throw new InputError(`${path} contains no *.jsonl trace files`);
    files.push(...inside);
  }
  return files;
}

/** The method name of a trace file without `method` fields: its base name without the extension. */
export function methodFromFile(file: string): string {
  const name = basename(file);
  return name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name.slice(0, name.length - extname(name).length) || name;
}

/**
 * Parses the text of one JSONL trace. Blank lines are skipped; anything else that is not a valid event
 * throws a FormatError naming `file` and the 1-based line.
 */
export function parseTrace(text: string, file: string): TraceEvent[] {
  const events: TraceEvent[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const fail = (message: string): never => {
      throw new FormatError(message, file, i + 1);
    };
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      fail(`not valid JSON (${(e as Error).message.split('\n')[0]})`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('expected a JSON object per line');
    const event = value as Record<string, unknown>;
    for (const key of REQUIRED_NUMBERS) {
      const x = event[key];
      if (typeof x !== 'number' || !Number.isFinite(x)) fail(`'${key}' must be a finite number, got ${JSON.stringify(x) ?? 'nothing'}`);
    }
    if (typeof event.gapIsExact !== 'boolean') fail(`'gapIsExact' must be true or false, got ${JSON.stringify(event.gapIsExact) ?? 'nothing'}`);
    for (const key of OPTIONAL_NUMBERS) {
      const x = event[key];
      if (x === null) delete event[key];
      else if (x !== undefined && typeof x !== 'number') fail(`'${key}' must be a number, got ${JSON.stringify(x)}`);
    }
    if (event.monitor !== undefined && typeof event.monitor !== 'boolean') fail(`'monitor' must be true or false, got ${JSON.stringify(event.monitor)}`);
    if (event.method !== undefined && (typeof event.method !== 'string' || event.method === '')) fail(`'method' must be a non-empty string, got ${JSON.stringify(event.method)}`);
    if (event.seed !== undefined && !Number.isInteger(event.seed)) fail(`'seed' must be an integer, got ${JSON.stringify(event.seed)}`);
    if (event.data !== undefined && typeof event.data !== 'string') fail(`'data' must be a string, got ${JSON.stringify(event.data)}`);
    events.push(event as TraceEvent);
  }
  return events;
}

/**
 * The fields a command adds to every event it writes to `--trace`, so that `gapbcfw plot` can name the
 * method in the legend, group seeds, title the figure and refuse to mix data sets.
 */
export interface TraceContext {
  /** The method as the legend shows it, e.g. `bcpfw, gap sampling, cache` (see {@link methodName}). */
  method: string;
  seed: number;
  lambda?: number;
  /** The data set, `KIND:PATH` plus its split. */
  data: string;
}

/** The legend name of a training method: the solver, then its sampling and cache when it has them. */
export function methodName(o: { solver: string; sampling?: string; cache?: boolean }): string {
  return [o.solver, ...(o.sampling === undefined ? [] : [`${o.sampling} sampling`]), ...(o.cache ? ['cache'] : [])].join(', ');
}

/** Groups the events of one file into runs by (method, seed); see the module comment for the defaults. */
export function runsOfFile(events: readonly TraceEvent[], file: string): TraceRun[] {
  const runs = new Map<string, TraceRun>();
  const fallback = methodFromFile(file);
  for (const event of events) {
    const method = event.method ?? fallback;
    const seed = event.seed ?? 1;
    const key = JSON.stringify([method, seed]);
    let run = runs.get(key);
    if (!run) runs.set(key, (run = { method, seed, file, events: [] }));
    if (run.lambda === undefined && typeof event.lambda === 'number') run.lambda = event.lambda;
    if (run.data === undefined && typeof event.data === 'string') run.data = event.data;
    run.events.push(event);
  }
  return [...runs.values()];
}

/**
 * Reads trace files and directories (see listTraceFiles) into runs. The same (method, seed) in two files
 * is an InputError: it would silently merge two runs (rename a file, or give the runs `method` fields).
 */
export function readTraces(paths: readonly string[]): TraceSet {
  const files = listTraceFiles(paths);
  const runs: TraceRun[] = [];
  const emptyFiles: string[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const text = readInputText(file);
    const events = parseTrace(text, file);
    if (events.length === 0) emptyFiles.push(file);
    for (const run of runsOfFile(events, file)) {
      const key = JSON.stringify([run.method, run.seed, run.lambda, run.data]);
      const other = seen.get(key);
      if (other !== undefined) {
        throw new InputError(`method '${run.method}' seed ${run.seed} appears in both ${other} and ${file} (rename one file or add method/seed fields)`);
      }
      seen.set(key, file);
      runs.push(run);
    }
  }
  return { files, emptyFiles, runs };
}

/**
 * Groups runs into one series per method (order of first appearance), seeds ascending. When the runs have
 * several lambdas, the runs of one method at different lambdas are different series, named `METHOD, λ = L`.
 */
export function groupSeries(runs: readonly TraceRun[]): TraceSeries[] {
  const lambdas = new Set(runs.flatMap((r) => (r.lambda === undefined ? [] : [r.lambda])));
  const nameOf = (run: TraceRun) => (lambdas.size > 1 && run.lambda !== undefined ? `${run.method}, λ = ${+run.lambda.toPrecision(4)}` : run.method);
  const byMethod = new Map<string, TraceRun[]>();
  for (const run of runs) {
    const list = byMethod.get(nameOf(run));
    if (list) list.push(run);
    else byMethod.set(nameOf(run), [run]);
  }
  return [...byMethod].map(([method, list]) => ({ method, runs: [...list].sort((a, b) => a.seed - b.seed) }));
}
