/**
 * Picks the scoring backend: forced by name, or `auto`: a short calibration on an OCR-shaped problem times
 * every available backend, rejects any whose scores disagree with the float64 reference, and keeps the
 * fastest. The choice is cached on disk per machine, Node version and package version.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InputError } from '../src/core/errors.js';
import { packageRoot } from '../src/core/package-root.js';
import type { BackendName, ScoringBackend } from '../src/core/scoring.js';
import { GpuJsBackend, type GpuJsMode } from './gpujs.js';
import { JsBackend } from './js.js';
import { NativeBackend } from './native.js';

/** What `--backend` accepts: a backend by name, or `auto` (calibrated, cached). */
export const BACKEND_CHOICES = ['auto', 'native', 'gpujs', 'js'] as const;
/** One of {@link BACKEND_CHOICES}. */
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

/** Settings of {@link createBackend} and {@link chooseBackend}. */
export interface BackendOptions {
  /** Native threads (default os.availableParallelism()). */
  threads?: number;
  /** gpu.js mode (default `gpu`). */
  gpuMode?: GpuJsMode;
  /**
   * Calibration cache file for `auto`: a path, or null for no cache. Default
   * `$GAPBCFW_CACHE_DIR/backend.json`, else `$XDG_CACHE_HOME/gapbcfw/backend.json`, else `~/.cache/gapbcfw/backend.json`.
   */
  cacheFile?: string | null;
}

/** What was chosen and why; printed by the CLI and returned in --json output. */
export interface BackendReport {
  backend: BackendName;
  mode: string;
  precision: 'float64' | 'float32';
  /** forced: named by the user; calibrated: measured now; cached: a previous calibration on this machine. */
  how: 'forced' | 'calibrated' | 'cached';
  /** Calibration: milliseconds per scoring call of each backend that ran correctly. */
  millis?: Partial<Record<BackendName, number>>;
  /** Calibration: why a backend was not considered (unavailable, or wrong scores). */
  rejected?: Partial<Record<BackendName, string>>;
}

/** Creates a backend by name (throws InputError when it cannot run here). */
export function createBackend(name: BackendName, options: BackendOptions = {}): ScoringBackend {
  switch (name) {
    case 'native':
      return new NativeBackend(options.threads);
    case 'js':
      return new JsBackend();
    case 'gpujs':
      try {
        return new GpuJsBackend(options.gpuMode ? { mode: options.gpuMode } : {});
      } catch (e) {
        throw new InputError(`the gpu.js backend cannot start: ${(e as Error).message}`);
      }
    default:
      throw new InputError(`unknown scoring backend '${name as string}' (use ${BACKEND_CHOICES.join(', ')})`);
  }
}

/** The calibration problem: OCR-shaped (K = 26 classes, 128 binary-ish features, 4,096 rows), seeded. */
function calibrationProblem(): { X: Float64Array; W: Float64Array; rows: number; cols: number; K: number; labels: Int32Array; weight: Float64Array } {
  const rows = 4096;
  const cols = 128;
  const K = 26;
  let state = 0x9e3779b9;
  const next = (): number => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) | 0;
    return (state >>> 0) / 2 ** 32;
  };
  const X = new Float64Array(rows * cols).map(() => (next() < 0.4 ? 1 : 0));
  const W = new Float64Array(K * cols).map(() => next() - 0.5);
  const labels = new Int32Array(rows).map(() => Math.floor(next() * K));
  const weight = new Float64Array(rows).fill(1 / 8);
  return { X, W, rows, cols, K, labels, weight };
}

/** Milliseconds per call (best of 3 after a warm-up), or the reason the backend's scores are wrong. */
function calibrate(backend: ScoringBackend, p: ReturnType<typeof calibrationProblem>, reference: Float64Array): number | string {
  const rows = backend.prepare(p.X, p.rows, p.cols);
  const out = new Float64Array(p.rows * p.K);
  const aug = { labels: p.labels, weight: p.weight };
  backend.score(rows, p.W, p.K, out, aug);
  let scale = 1;
  let err = 0;
  for (let i = 0; i < out.length; i++) {
    scale = Math.max(scale, Math.abs(reference[i]!));
    err = Math.max(err, Math.abs(out[i]! - reference[i]!));
  }
  const tolerance = (backend.precision === 'float32' ? 1e-4 : 1e-9) * scale;
  if (!(err <= tolerance)) return `scores differ from the float64 reference by ${err.toExponential(2)} (tolerance ${tolerance.toExponential(1)})`;
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    backend.score(rows, p.W, p.K, out, aug);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

function defaultCacheFile(): string {
  const dir = process.env.GAPBCFW_CACHE_DIR || (process.env.XDG_CACHE_HOME ? join(process.env.XDG_CACHE_HOME, 'gapbcfw') : join(homedir(), '.cache', 'gapbcfw'));
  return join(dir, 'backend.json');
}

/** The installed gpu.js version, or 'absent' (an optional peer dependency; installing it later recalibrates). */
function gpuJsVersion(): string {
  try {
    return (createRequire(import.meta.url)('gpu.js/package.json') as { version: string }).version;
  } catch {
    return 'absent';
  }
}

function cacheKey(options: BackendOptions): string {
  const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  const cpu = cpus()[0]?.model ?? 'cpu';
  return [hostname(), `${process.platform}-${process.arch}`, cpu, `node ${process.versions.node}`, `gapbcfw ${version}`, `threads ${options.threads ?? availableParallelism()}`, `gpu.js ${gpuJsVersion()} ${options.gpuMode ?? 'gpu'}`].join(' | ');
}

function readCache(file: string): Record<string, BackendReport> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, BackendReport>) : {};
  } catch {
    return {};
  }
}

/**
 * Resolves a backend choice. `auto` returns the cached calibration when there is one (and its backend still
 * starts), else calibrates native, gpu.js and js now and caches the winner. A forced name is created as is.
 */
export function chooseBackend(choice: BackendChoice = 'auto', options: BackendOptions = {}): { backend: ScoringBackend; report: BackendReport } {
  if (!(BACKEND_CHOICES as readonly string[]).includes(choice)) {
    throw new InputError(`unknown scoring backend '${choice as string}' (use ${BACKEND_CHOICES.join(', ')})`);
  }
  if (choice !== 'auto') {
    const backend = createBackend(choice, options);
    return { backend, report: { backend: backend.name, mode: backend.mode, precision: backend.precision, how: 'forced' } };
  }
  const file = options.cacheFile === undefined ? defaultCacheFile() : options.cacheFile;
  const key = cacheKey(options);
  if (file !== null) {
    const cached = readCache(file)[key];
    if (cached && (BACKEND_CHOICES as readonly string[]).includes(cached.backend)) {
      try {
        const backend = createBackend(cached.backend, options);
        return { backend, report: { ...cached, mode: backend.mode, how: 'cached' } };
      } catch {
        // the cached backend no longer starts: calibrate again
      }
    }
  }
  const p = calibrationProblem();
  const reference = new Float64Array(p.rows * p.K);
  const js = new JsBackend();
  js.score(js.prepare(p.X, p.rows, p.cols), p.W, p.K, reference, { labels: p.labels, weight: p.weight });
  const millis: Partial<Record<BackendName, number>> = {};
  const rejected: Partial<Record<BackendName, string>> = {};
  let best: ScoringBackend | undefined;
  for (const name of ['native', 'gpujs', 'js'] as const) {
    let backend: ScoringBackend;
    try {
      backend = createBackend(name, options);
    } catch (e) {
      rejected[name] = (e as Error).message;
      continue;
    }
    let result: number | string;
    try {
      result = calibrate(backend, p, reference);
    } catch (e) {
      result = (e as Error).message;
    }
    if (typeof result === 'string') {
      rejected[name] = result;
      backend.dispose();
    } else {
      millis[name] = Number(result.toPrecision(3));
      if (best === undefined || result < millis[best.name]!) {
        best?.dispose();
        best = backend;
      } else {
        backend.dispose();
      }
    }
  }
  if (!best) throw new InputError(`no scoring backend works here: ${JSON.stringify(rejected)}`);
  const report: BackendReport = { backend: best.name, mode: best.mode, precision: best.precision, how: 'calibrated', millis, rejected };
  if (file !== null) {
    try {
      mkdirSync(join(file, '..'), { recursive: true });
      const all = readCache(file);
      all[key] = report;
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`);
      renameSync(tmp, file);
    } catch {
      // a read-only home only costs a calibration next time
    }
  }
  return { backend: best, report };
}

/** One line for humans: `native (simd-threads(2)), calibrated: native 0.9 ms, gpujs 12 ms, js 6.1 ms`. */
export function describeBackend(report: BackendReport): string {
  const times = report.millis ? Object.entries(report.millis).map(([k, v]) => `${k} ${v} ms`).join(', ') : '';
  return `${report.backend} (${report.mode}, ${report.precision}), ${report.how}${times ? `: ${times}` : ''}`;
}
