import { readFileSync } from 'node:fs';
import { writeOutput } from '../io/output.js';
import { FormatError } from '../core/errors.js';
import { modelProblem } from '../core/problem.js';
import { buildModel, loadTask } from '../data/datasets.js';
import { loadModel } from '../io/model.js';
import { crc32 } from '../io/model-file.js';
import { fullOraclePass } from '../solvers/common.js';
import { UsageError, parse, report, type Io, streamOption } from './common.js';
import { backendOf, scoringOf } from './train-options.js';
import { countProgress } from './progress.js';

export const GAP_USAGE = `gapbcfw gap MODEL DATA [options]: the exact duality gap of a saved model over a whole data set

  Computes primal = lambda/2 ||w||^2 + (1/n) sum_i H_i(w) with one batched oracle pass, the error of the
  plain predictions, and, on the model's own training set, the exact duality gap (primal - saved dual).
  --part train|test (default train), --split S, --backend auto|native|gpujs|js, --gpu-mode MODE, --json
  --shard I/N --out PART.json   evaluate only examples [floor(I n/N), floor((I+1) n/N)) and write a partial;
                                gapbcfw gap-merge PART... combines the N partials into exactly the answer of
                                one pass (per-example terms are kept and summed in index order).
  Slurm job array:   gapbcfw gap m.gbm DATA --shard \${SLURM_ARRAY_TASK_ID}/N --out part-\${SLURM_ARRAY_TASK_ID}.json
  Kubernetes Indexed Job: --shard \${JOB_COMPLETION_INDEX}/N (the index Kubernetes sets in every pod)`;

const GAP_OPTIONS = {
  part: { type: 'string' },
  split: { type: 'string' },
  backend: { type: 'string' },
  'gpu-mode': { type: 'string' },
  shard: { type: 'string' },
  stream: { type: 'boolean' },
  'in-memory': { type: 'boolean' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

/** What one shard contributes: per-example hinge and loss terms, and what identifies the job. */
interface GapPartial {
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
}

function parseShard(value: string): [number, number] {
  const m = /^(\d+)\/(\d+)$/.exec(value);
  if (!m) throw new UsageError(`--shard must be I/N with integers 0 <= I < N, got '${value}'`);
  const i = Number(m[1]);
  const n = Number(m[2]);
  if (!(n >= 1 && i < n)) throw new UsageError(`--shard must be I/N with integers 0 <= I < N, got '${value}'`);
  return [i, n];
}

/** `gapbcfw gap`: one shard (or all) of the exact gap pass. */
export async function runGap(args: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parse(args, GAP_OPTIONS);
  if (v.help) {
    io.stdout.write(`${GAP_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 2) throw new UsageError('gap takes MODEL DATA, e.g. gapbcfw gap model.gbm ocr:letter.data.gz --split small');
  const shard = v.shard === undefined ? ([0, 1] as [number, number]) : parseShard(v.shard);
  if (v.shard !== undefined && v.out === undefined) throw new UsageError('--shard needs --out PART.json');
  const trained = loadModel(positionals[0]!);
  const task = loadTask(positionals[1]!, { split: v.split, model: trained.spec, stream: streamOption(v) });
  const part = v.part ?? 'train';
  if (part !== 'train' && part !== 'test') throw new UsageError(`--part must be train or test, got '${part}'`);
  const set = part === 'test' ? task.test : task.train;
  if (!set) throw new UsageError(`${positionals[1]} has no ${part} part`);
  const n = set.length;
  const start = Math.floor((shard[0] * n) / shard[1]);
  const end = Math.floor(((shard[0] + 1) * n) / shard[1]);
  const model = buildModel(trained.spec, backendOf(v.backend));
  const { scoring } = scoringOf(model, v.backend, v['gpu-mode']);
  const t0 = performance.now();
  const hinge: number[] = [];
  const loss: number[] = [];
  if (end > start) {
    const shardSet = set.slice(start, end);
    // One pass gives the hinges and, where the model's batched pass can, the plain predictions too.
    const predictions: unknown[] = new Array(shardSet.length);
    const problem = modelProblem(model, shardSet, { scoring, onPassProgress: countProgress(io.stderr, 'exact pass', v.quiet ?? false) });
    for (const h of fullOraclePass(problem, trained.w, undefined, predictions).hinge) hinge.push(h);
    for (let i = 0; i < shardSet.length; i++) loss.push(model.loss(shardSet.label(i), predictions[i]));
  }
  let wSq = 0;
  for (const x of trained.w) wSq += x * x;
  const partial: GapPartial = {
    format: 'gapbcfw-gap-partial', version: 1,
    modelChecksum: (crc32(new Uint8Array(trained.w.buffer, trained.w.byteOffset, trained.w.byteLength)) >>> 0).toString(16),
    data: positionals[1]!, part, n, shard, start, hinge, loss, lambda: trained.lambda, wSq,
    dual: trained.dual !== undefined && trained.trainFingerprint === set.fingerprint() ? trained.dual : null,
  };
  if (v.out !== undefined) writeOutput(v.out, `${JSON.stringify(partial)}\n`, { stdout: io.stdout });
  const seconds = (performance.now() - t0) / 1000;
  if (v.shard !== undefined) {
    report({ command: 'gap', shard: `${shard[0]}/${shard[1]}`, examples: end - start, out: v.out, seconds }, v.json ?? false, io, `shard ${shard[0]}/${shard[1]}: ${end - start} examples`);
    return 0;
  }
  report({ ...combine([partial]), seconds }, v.json ?? false, io, `exact pass of ${positionals[0]} over ${positionals[1]} (${part})`);
  return 0;
}

/** Sums the per-example terms of all shards in index order: the same numbers as one pass. */
function combine(parts: GapPartial[]): Record<string, unknown> {
  const p0 = parts[0]!;
  const ordered = [...parts].sort((a, b) => a.start - b.start);
  let hingeSum = 0;
  let lossSum = 0;
  for (const p of ordered) {
    for (const h of p.hinge) hingeSum += h;
    for (const l of p.loss) lossSum += l;
  }
  const primal = 0.5 * p0.lambda * p0.wSq + hingeSum / p0.n;
  return {
    command: 'gap', data: p0.data, part: p0.part, n: p0.n, lambda: p0.lambda, primal,
    [p0.part === 'test' ? 'testError' : 'trainError']: lossSum / p0.n,
    ...(p0.dual === null ? {} : { dual: p0.dual, gap: primal - p0.dual, gapIsExact: true }),
  };
}

/** The fields gap-merge relies on, with their types (a hand-edited or foreign file is a FormatError, not a crash). */
function checkPartial(p: GapPartial, file: string): void {
  const fail = (what: string): never => {
    throw new FormatError(`gap partial: ${what}`, file);
  };
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
}

/** `gapbcfw gap-merge PART...`: checks that the partials are the N shards of one job and combines them. */
export async function runGapMerge(args: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parse(args, { json: { type: 'boolean' }, help: { type: 'boolean' } } as const);
  if (v.help || positionals.length === 0) {
    if (positionals.length === 0 && !v.help) throw new UsageError('gap-merge takes the partial files written by gapbcfw gap --shard I/N --out');
    io.stdout.write('gapbcfw gap-merge PART.json...: combine the shards of gapbcfw gap --shard into one result\n');
    return 0;
  }
  const parts = positionals.map((file) => {
    let p: GapPartial;
    try {
      p = JSON.parse(readFileSync(file, 'utf8')) as GapPartial;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code) throw e;
      throw new FormatError('not a JSON gap partial', file);
    }
    if (p === null || typeof p !== 'object' || p.format !== 'gapbcfw-gap-partial' || p.version !== 1) throw new FormatError('not a gap partial of this gapbcfw (format/version)', file);
    checkPartial(p, file);
    return p;
  });
  const p0 = parts[0]!;
  const N = p0.shard[1];
  const seen = new Set<number>();
  for (const p of parts) {
    for (const key of ['modelChecksum', 'data', 'part', 'n', 'lambda', 'wSq', 'dual'] as const) {
      if (p[key] !== p0[key]) throw new UsageError(`partials disagree on ${key}: they come from different jobs`);
    }
    if (p.shard[1] !== N) throw new UsageError(`partials disagree on the shard count (${p.shard[1]} vs ${N})`);
    if (seen.has(p.shard[0])) throw new UsageError(`shard ${p.shard[0]}/${N} appears twice`);
    seen.add(p.shard[0]);
  }
  if (seen.size !== N) throw new UsageError(`missing shards: got ${seen.size} of ${N}`);
  report(combine(parts), v.json ?? false, io, `merged ${N} shards`);
  return 0;
}
