/**
 * Gap shards: the exact pass of a saved model split into N shards (job arrays on a cluster) and merged back into
 * exactly the answer of one pass. A shard is a JSON file of per-example hinge and loss terms plus what identifies
 * the job (model checksum, data, lambda, ||w||^2, the saved dual); `combineGapPartials` sums the terms in example
 * order, so the merged primal and gap are the same numbers as one unsharded pass.
 * @module
 */
import { posix } from 'node:path';
import { readInputText } from '../io/input.js';
import { FormatError, InputError } from '../core/errors.js';
import { crc32 } from '../io/model-file.js';
import { gapStatus, passGap } from '../core/approximate.js';

/** What one shard contributes: per-example hinge and loss terms, and what identifies the job. */
export interface GapPartial {
  format: 'gapbcfw-gap-partial';
  version: 1;
  modelChecksum: string;
  data: string;
  part: string;
  n: number;
  shard: [number, number];
  start: number;
  hinge: number[];
  loss: number[];
  lambda: number;
  wSq: number;
  /** Saved dual of the model when DATA is its training set. */
  dual: number | null;
  /**
   * Present when an oracle call of the shard was approximate (src/core/approximate.ts): the sum of its slacks, null
   * when a call had no bound.
   */
  slack?: number | null;
}

/** The merged answer: primal, error on the part, and the gap when the model's dual belongs to this data. */
export interface GapSummary {
  data: string;
  part: string;
  n: number;
  lambda: number;
  primal: number;
  trainError?: number;
  testError?: number;
  dual?: number;
  gap?: number;
  /** Whether the gap is a certificate: false when an oracle call of a shard was approximate. */
  gapIsExact?: boolean;
  /** 'approximate' when an oracle call of a shard was. */
  oracle?: 'approximate';
  /** With an approximate oracle whose every call had a bound: upper bounds on the true primal and gap. */
  primalUpperBound?: number;
  gapUpperBound?: number;
}

/** `I/N` as [I, N] with integers 0 <= I < N. @throws InputError otherwise. */
export function parseShard(value: string): [number, number] {
  const m = /^(\d+)\/(\d+)$/.exec(value);
  const i = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (!m || !(n >= 1 && i < n)) throw new InputError(`--shard must be I/N with integers 0 <= I < N, got '${value}'`);
  return [i, n];
}

/** Examples [start, end) of shard I of N over n examples: [floor(I n / N), floor((I + 1) n / N)). */
export function shardRange(n: number, [i, count]: [number, number]): { start: number; end: number } {
  return { start: Math.floor((i * n) / count), end: Math.floor(((i + 1) * n) / count) };
}

/**
 * The partial of one shard: the per-example terms over examples [start, start + hinge.length) of the set, with the
 * model's checksum, lambda and ||w||^2; `dual` is the model's saved dual when the set is its training set, else null.
 */
export function gapPartial(o: {
  w: Float64Array; lambda: number; dual: number | null; data: string; part: string; n: number; shard: [number, number]; start: number; hinge: number[]; loss: number[];
  /** The shard's oracle pass: exact (the default), or approximate with the sum of its slacks. */
  oracle?: { exact: boolean; slack: number };
}): GapPartial {
  let wSq = 0;
  for (const x of o.w) wSq += x * x;
  const modelChecksum = (crc32(new Uint8Array(o.w.buffer, o.w.byteOffset, o.w.byteLength)) >>> 0).toString(16);
  const slack = o.oracle === undefined || o.oracle.exact ? {} : { slack: Number.isFinite(o.oracle.slack) ? o.oracle.slack : null };
  return { format: 'gapbcfw-gap-partial', version: 1, modelChecksum, data: sameSpelling(o.data), part: o.part, n: o.n, shard: o.shard, start: o.start, hinge: o.hinge, loss: o.loss, lambda: o.lambda, wSq, dual: o.dual, ...slack };
}

/**
 * One spelling of a data set `KIND:PATH` for comparing shards: the path normalised (`./dir/x`, `dir//x` and
 * `dir/y/../x` are `dir/x`), so that jobs that name the same files differently still merge.
 */
function sameSpelling(data: string): string {
  const colon = data.indexOf(':');
  const path = colon < 0 ? data : data.slice(colon + 1);
  return path === '' ? data : `${colon < 0 ? '' : data.slice(0, colon + 1)}${posix.normalize(path)}`;
}

/** Sums the per-example terms of all shards in index order: the same numbers as one pass. */
export function combineGapPartials(parts: readonly GapPartial[]): GapSummary {
  const p0 = parts[0]!;
  const ordered = [...parts].sort((a, b) => a.start - b.start);
  let hingeSum = 0;
  let lossSum = 0;
  const oracle = { exact: true, slack: 0 };
  for (const p of ordered) {
    for (const h of p.hinge) hingeSum += h;
    for (const l of p.loss) lossSum += l;
    if (p.slack !== undefined) {
      oracle.exact = false;
      oracle.slack += p.slack === null ? Infinity : p.slack;
    }
  }
  const primal = 0.5 * p0.lambda * p0.wSq + hingeSum / p0.n;
  const summary: GapSummary = { data: p0.data, part: p0.part, n: p0.n, lambda: p0.lambda, primal, [p0.part === 'test' ? 'testError' : 'trainError']: lossSum / p0.n };
  if (p0.dual !== null) {
    const gap = passGap(primal, p0.dual, oracle);
    return { ...summary, dual: p0.dual, gap, ...gapStatus(primal, gap, oracle, p0.n) };
  }
  // No gap without the dual; an approximate oracle still makes the primal an estimate from below.
  if (oracle.exact) return summary;
  const { oracle: approximate, primalUpperBound } = gapStatus(primal, 0, oracle, p0.n);
  return { ...summary, oracle: approximate, ...(primalUpperBound !== undefined ? { primalUpperBound } : {}) };
}

/** The fields a merge relies on, with their types (a hand-edited or foreign file is a FormatError, not a crash). */
function checkPartial(p: GapPartial, file: string): void {
  const fail = (what: string): never => {
    throw new FormatError(`gap partial: ${what}`, file);
  };
  if (p === null || typeof p !== 'object' || p.format !== 'gapbcfw-gap-partial' || p.version !== 1) throw new FormatError('not a gap partial of this gapbcfw (format/version)', file);
  const nonNegInt = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
  if (!Array.isArray(p.shard) || p.shard.length !== 2 || !nonNegInt(p.shard[0]) || !nonNegInt(p.shard[1]) || p.shard[0] >= p.shard[1]) fail("'shard' must be [I, N] with integers 0 <= I < N");
  if (!nonNegInt(p.n) || !nonNegInt(p.start)) fail("'n' and 'start' must be non-negative integers");
  for (const key of ['hinge', 'loss'] as const) {
    const a = p[key] as unknown;
    if (!Array.isArray(a) || a.some((x) => typeof x !== 'number' || !Number.isFinite(x))) fail(`'${key}' must be an array of finite numbers`);
  }
  if (p.hinge.length !== p.loss.length || p.start + p.hinge.length > p.n) fail(`'hinge' and 'loss' must cover the shard's examples inside 0..${p.n - 1}`);
  for (const key of ['lambda', 'wSq'] as const) if (typeof p[key] !== 'number' || !Number.isFinite(p[key])) fail(`'${key}' must be a finite number`);
  if (p.dual !== null && (typeof p.dual !== 'number' || !Number.isFinite(p.dual))) fail("'dual' must be a finite number or null");
  if (p.slack !== undefined && p.slack !== null && !(typeof p.slack === 'number' && p.slack >= 0 && Number.isFinite(p.slack))) fail("'slack' must be a finite number >= 0 or null");
}

/**
 * Reads partials and checks that they are the N shards of one job.
 * @throws FormatError for a file that is not a partial; InputError when the partials come from different jobs,
 *   a shard appears twice or one is missing.
 */
export function readGapPartials(files: readonly string[]): GapPartial[] {
  const parts = files.map((file) => {
    let p: GapPartial;
    try {
      p = JSON.parse(readInputText(file)) as GapPartial;
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new FormatError('not a JSON gap partial', file);
    }
    checkPartial(p, file);
    return p;
  });
  const p0 = parts[0]!;
  const N = p0.shard[1];
  const seen = new Set<number>();
  for (const p of parts) {
    for (const key of ['modelChecksum', 'data', 'part', 'n', 'lambda', 'wSq', 'dual'] as const) {
      const differ = key === 'data' ? sameSpelling(p.data) !== sameSpelling(p0.data) : p[key] !== p0[key];
      if (differ) throw new InputError(`partials disagree on ${key}${key === 'data' ? ` (${p.data} and ${p0.data})` : ''}: they come from different jobs`);
    }
    if (p.shard[1] !== N) throw new InputError(`partials disagree on the shard count (${p.shard[1]} vs ${N})`);
    if (seen.has(p.shard[0])) throw new InputError(`shard ${p.shard[0]}/${N} appears twice`);
    seen.add(p.shard[0]);
  }
  if (seen.size !== N) throw new InputError(`missing shards: got ${seen.size} of ${N}`);
  return parts;
}
