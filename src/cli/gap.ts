import { readFileSync } from 'node:fs';
import { writeOutput } from '../io/output.js';
import { FormatError } from '../core/errors.js';
import { modelProblem } from '../core/problem.js';
import { loadModel } from '../io/model.js';
import { crc32 } from '../io/model-file.js';
import { buildModel } from '../tasks/model-kinds.js';
import { positional, value, type Command } from './args.js';
import { UsageError, report } from './common.js';
import { loadPart, PART_OPTION } from './eval.js';
import { BACKEND_OPTIONS, DATA_OPTIONS, REPORT_OPTIONS, decodeBackend, scoringOf, taskOptionTable } from './options.js';
import { passProgress, passUnlessStopped } from './progress.js';
import { checkCommandOutputs, withInterrupts } from './session.js';

/**
 * `gapbcfw gap MODEL DATA`: the exact duality gap of a saved model over a whole data set (or one `--shard I/N` of
 * it, for job arrays), and `gapbcfw gap-merge PART...`, which combines the shards into the answer of one pass.
 * @module
 */

export const gapCommand: Command = {
  name: 'gap',
  summary: 'exact duality gap, primal and error of a saved model over a data set, or one --shard I/N of it',
  description:
    'Computes primal = lambda/2 ||w||^2 + (1/n) sum_i H_i(w) with one batched oracle pass, the error of the plain\n' +
    'predictions, and, on the model\'s own training set, the exact duality gap (primal - saved dual).\n' +
    '--shard I/N --out PART.json evaluates only examples [floor(I n/N), floor((I+1) n/N)) and writes a partial;\n' +
    'gapbcfw gap-merge PART... combines the N partials into exactly the answer of one pass.\n' +
    '  Slurm job array:        gapbcfw gap m.gbm DATA --shard ${SLURM_ARRAY_TASK_ID}/N --out part-${SLURM_ARRAY_TASK_ID}.json\n' +
    '  Kubernetes Indexed Job: --shard ${JOB_COMPLETION_INDEX}/N (the index Kubernetes sets in every pod)',
  positionals: [
    { name: 'MODEL', help: 'a model file', input: 'file' },
    { name: 'DATA', help: 'KIND:PATH', input: 'data' },
  ],
  options: [
    { ...PART_OPTION, default: 'train' },
    { name: 'shard', type: 'string', value: 'I/N', help: 'evaluate shard I of N (needs --out)' },
    { name: 'out', type: 'string', value: 'PART.json', short: 'o', output: 'file', help: 'write the partial of the shard (or of the whole pass)' },
    ...DATA_OPTIONS,
    ...taskOptionTable('model'),
    ...BACKEND_OPTIONS,
    ...REPORT_OPTIONS,
  ],
  run: async (a, io) => {
    const shardValue = value.string(a, 'shard');
    const shard = shardValue === undefined ? ([0, 1] as [number, number]) : parseShard(shardValue);
    const out = value.string(a, 'out');
    if (shardValue !== undefined && out === undefined) throw new UsageError('--shard needs --out PART.json');
    const summaryIo = checkCommandOutputs(a, io);
    const trained = loadModel(positional(a, 0));
    const { data, part } = await loadPart(a, io, trained, (value.string(a, 'part') as 'train' | 'test' | undefined) ?? 'train');
    const set = part === 'test' ? data.test! : data.train;
    const n = set.length;
    const start = Math.floor((shard[0] * n) / shard[1]);
    const end = Math.floor(((shard[0] + 1) * n) / shard[1]);
    const model = buildModel(trained.spec, decodeBackend(a));
    const { scoring } = scoringOf(model, a);
    const t0 = performance.now();
    const hinge: number[] = [];
    const loss: number[] = [];
    // A signal stops the pass between chunks: a gap needs every example, so nothing is written then (--shard splits
    // a long pass into parts that each finish).
    let stopped = false;
    const code = await withInterrupts(io, 'stopping the exact pass; no result is written (a gap needs every example)', async (signal) => {
      if (end > start) {
        const shardSet = set.slice(start, end);
        // One pass gives the hinges and, where the model's batched pass can, the plain predictions too.
        const predictions: unknown[] = new Array(shardSet.length);
        const problem = modelProblem(model, shardSet, { scoring });
        const pass = await passUnlessStopped(problem, trained.w, { signal, predictions, onProgress: passProgress(io, a) });
        if (!pass) {
          stopped = true;
          return 0;
        }
        for (const h of pass.hinge) hinge.push(h);
        for (let i = 0; i < shardSet.length; i++) loss.push(model.loss(shardSet.label(i), predictions[i]));
      }
      return 0;
    });
    if (stopped) return code;
    if (trained.lambda === undefined) throw new UsageError(`${positional(a, 0)} stores no lambda (a pose model of the first format): its primal cannot be computed`);
    let wSq = 0;
    for (const x of trained.w) wSq += x * x;
    const partial: GapPartial = {
      format: 'gapbcfw-gap-partial', version: 1,
      modelChecksum: (crc32(new Uint8Array(trained.w.buffer, trained.w.byteOffset, trained.w.byteLength)) >>> 0).toString(16),
      data: positional(a, 1), part, n, shard, start, hinge, loss, lambda: trained.lambda, wSq,
      dual: trained.dual !== undefined && trained.trainFingerprint === set.fingerprint() ? trained.dual : null,
    };
    if (out !== undefined) writeOutput(out, `${JSON.stringify(partial)}\n`, { stdout: io.stdout });
    const seconds = (performance.now() - t0) / 1000;
    const json = value.flag(a, 'json');
    if (shardValue !== undefined) report({ command: 'gap', shard: `${shard[0]}/${shard[1]}`, examples: end - start, out, seconds }, json, summaryIo, `shard ${shard[0]}/${shard[1]}: ${end - start} examples`);
    else report({ ...combine([partial]), seconds }, json, summaryIo, `exact pass of ${positional(a, 0)} over ${positional(a, 1)} (${part})`);
    return code;
  },
};

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

export const gapMergeCommand: Command = {
  name: 'gap-merge',
  summary: 'combine the partials of gapbcfw gap --shard I/N --out PART.json into the answer of one pass',
  positionals: [{ name: 'PART.json', help: 'the partials of all N shards, in any order', input: 'file', variadic: true }],
  options: REPORT_OPTIONS,
  run: async (a, io) => {
    const parts = readPartials(a.positionals);
    report(combine(parts), value.flag(a, 'json'), io, `merged ${parts[0]!.shard[1]} shards`);
    return 0;
  },
};

/** Reads partials and checks that they are the N shards of one job. */
function readPartials(files: readonly string[]): GapPartial[] {
  const parts = files.map((file) => {
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
  return parts;
}
