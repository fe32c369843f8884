import { writeOutput } from '../io/output.js';
import { modelProblem } from '../engine/problem.js';
import { combineGapPartials, gapPartial, parseShard, readGapPartials, shardRange, type GapPartial } from '../engine/gap-shards.js';
import { certifiedGap } from '../solvers/common.js';
import { loadModel } from '../tasks/model.js';
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
    const { start, end } = shardRange(n, shard);
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
    const partial = gapPartial({
      w: trained.w, lambda: trained.lambda, data: positional(a, 1), part, n, shard, start, hinge, loss,
      dual: trained.dual !== undefined && trained.trainFingerprint === set.fingerprint() ? trained.dual : null,
    });
    if (out !== undefined) writeOutput(out, `${JSON.stringify(partial)}\n`, { stdout: io.stdout });
    const seconds = (performance.now() - t0) / 1000;
    const json = value.flag(a, 'json');
    if (shardValue !== undefined) report({ command: 'gap', shard: `${shard[0]}/${shard[1]}`, examples: end - start, out, seconds }, json, summaryIo, `shard ${shard[0]}/${shard[1]}: ${end - start} examples`);
    else report({ command: 'gap', ...combined([partial]), seconds }, json, summaryIo, `exact pass of ${positional(a, 0)} over ${positional(a, 1)} (${part})`);
    return code;
  },
};

export const gapMergeCommand: Command = {
  name: 'gap-merge',
  summary: 'combine the partials of gapbcfw gap --shard I/N --out PART.json into the answer of one pass',
  positionals: [{ name: 'PART.json', help: 'the partials of all N shards, in any order', input: 'file', variadic: true }],
  options: REPORT_OPTIONS,
  run: async (a, io) => {
    const parts = readGapPartials(a.positionals);
    report({ command: 'gap', ...combined(parts) }, value.flag(a, 'json'), io, `merged ${parts[0]!.shard[1]} shards`);
    return 0;
  },
};

/** The shards' sums, with the exact gap checked as every certificate is (src/solvers/common.ts). */
function combined(parts: readonly GapPartial[]): ReturnType<typeof combineGapPartials> {
  const summary = combineGapPartials(parts);
  if (summary.gap !== undefined) certifiedGap(summary.primal, summary.dual!);
  return summary;
}
