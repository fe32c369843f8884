/**
 * `gapbcfw eval MODEL DATA`: the error and the task's metrics (and its baseline) of a saved model on a part of a
 * data set; on the model's own training set also the exact duality gap. MODEL may be a path file from
 * `gapbcfw path` with `--lambda X`.
 * @module
 */
import { modelProblem } from '../engine/problem.js';
import { readModelFile } from '../io/model-file.js';
import { loadModel, type TrainedModel } from '../tasks/model.js';
import { isPathFile, loadPath } from '../path/path-file.js';
import { pathWeights } from '../path/regpath.js';
import { gapStatus, passGap } from '../core/approximate.js';
import type { FullPass } from '../solvers/common.js';
import { evaluatePartWithTables, loadTask, parseDataSpec } from '../tasks/index.js';
import { buildModel } from '../tasks/model-kinds.js';
import type { TaskData } from '../tasks/types.js';
import { positional, value, type Args, type Command, type CommandOption } from './args.js';
import { UsageError, approximateNote, report, type Io } from './common.js';
import { BACKEND_OPTIONS, DATA_OPTIONS, REPORT_OPTIONS, decodeBackend, loadOptions, scoringOf, taskOptionTable } from './options.js';
import { LAMBDA_RANGE } from '../solvers/settings.js';
import { passProgress, passUnlessStopped } from './progress.js';
import { checkCommandOutputs, withInterrupts } from './session.js';

/** `--part train|test`. */
export const PART_OPTION: CommandOption = { name: 'part', type: 'choice', value: 'P', choices: ['train', 'test'], help: 'the part of DATA to use', default: 'test when DATA has one' };

export const evalCommand: Command = {
  name: 'eval',
  summary: "error, the task's metrics and baseline of a saved model on a data set; on its training set the exact duality gap",
  positionals: [
    { name: 'MODEL', help: 'a model file (gapbcfw train --out), or a path file (gapbcfw path --out) with --lambda', input: 'file' },
    { name: 'DATA', help: 'KIND:PATH, encoded for the model (its dictionary, classes, corpus, HOG cells)', input: 'data' },
  ],
  options: [
    PART_OPTION,
    { name: 'lambda', type: 'number', value: 'X', ...LAMBDA_RANGE, help: 'MODEL is a path file: evaluate its epsilon-approximate w at X' },
    ...DATA_OPTIONS,
    ...taskOptionTable('model'),
    ...BACKEND_OPTIONS,
    ...REPORT_OPTIONS,
  ],
  run: async (a, io) => {
    checkCommandOutputs(a, io);
    const file = positional(a, 0);
    const trained = trainedModel(file, value.number(a, 'lambda'));
    const { data, part } = await loadPart(a, io, trained, value.string(a, 'part') as 'train' | 'test' | undefined);
    const set = part === 'test' ? data.test! : data.train;
    const model = buildModel(trained.spec, decodeBackend(a));
    const t0 = performance.now();
    const summary: Record<string, unknown> = { command: 'eval', task: data.task, part, n: set.length, ...evaluatePartWithTables(data, model, trained.w, part), ...data.baseline?.(part) };
    let code = 0;
    if (trained.dual !== undefined && trained.lambda !== undefined && trained.trainFingerprint === set.fingerprint()) {
      // The training set: primal by a full oracle pass, the dual from the saved iterate.
      const { scoring, report: scoringReport } = scoringOf(model, a);
      const problem = modelProblem(model, set, { scoring });
      let pass: FullPass | undefined;
      code = await withInterrupts(io, 'stopping the exact pass; the gap is not reported (it needs every example)', async (signal) => {
        pass = await passUnlessStopped(problem, trained.w, { signal, onProgress: passProgress(io, a) });
        return 0;
      });
      if (scoringReport) summary.scoringBackend = { backend: scoringReport.backend, mode: scoringReport.mode, how: scoringReport.how };
      if (pass) {
        let wSq = 0;
        for (const x of trained.w) wSq += x * x;
        const primal = 0.5 * trained.lambda * wSq + pass.hingeSum / problem.n;
        const gap = passGap(primal, trained.dual, pass);
        Object.assign(summary, { lambda: trained.lambda, primal, dual: trained.dual, gap, ...gapStatus(primal, gap, pass, problem.n) });
      }
    }
    summary.seconds = (performance.now() - t0) / 1000;
    report(summary, value.flag(a, 'json'), io, `evaluated ${file} on ${positional(a, 1)} (${part})${approximateNote(summary)}`);
    return code;
  },
};

/**
 * The data of a command on a trained model, encoded for it (its description goes to stderr), and the part to use:
 * `part` when given, else the test part when the data has one (only that part is read where the task can skip the other: LSP never re-reads its
 * training images to evaluate).
 */
export async function loadPart(a: Args, io: Io, trained: TrainedModel, part: 'train' | 'test' | undefined): Promise<{ data: TaskData; part: 'train' | 'test' }> {
  const spec = positional(a, 1);
  const base = { ...loadOptions(a, parseDataSpec(spec).kind), model: trained };
  const data = await loadTask(spec, { ...base, parts: [part ?? 'test'] });
  if (part === 'test' && !data.test) throw new UsageError(`${spec} has no test part (use --part train${data.task === 'ocr' ? ' or --split' : ''})`);
  const chosen = part !== undefined ? { data, part } : data.test ? { data, part: 'test' as const } : { data: data.train.length > 0 ? data : await loadTask(spec, { ...base, parts: ['train'] }), part: 'train' as const };
  // The options of the other part would be read and have no effect.
  for (const flag of chosen.part === 'train' ? ['test', 'test-limit'] : ['limit']) {
    if (a.given.has(flag)) throw new UsageError(`--${flag} applies to the ${chosen.part === 'train' ? 'test' : 'training'} part, and this command uses the ${chosen.part === 'train' ? 'training' : 'test'} part${chosen.part === 'test' ? ' (--test-limit limits it)' : ''}`);
  }
  if (!value.flag(a, 'quiet')) io.stderr.write(`${chosen.data.description}\n`);
  return chosen;
}

/** A model file, or the epsilon-approximate w of a stored regularization path at lambda (no dual: the path certifies it). */
export function trainedModel(file: string, lambda: number | undefined): TrainedModel {
  if (!isPathFile(readModelFile(file).meta)) {
    if (lambda !== undefined) throw new UsageError('--lambda applies to path files (from gapbcfw path)');
    return loadModel(file);
  }
  if (lambda === undefined) throw new UsageError(`${file} is a regularization path: give --lambda X`);
  const p = loadPath(file);
  return { task: p.task, spec: p.spec, fields: p.fields, w: pathWeights(p, lambda), lambda, training: { source: 'path', epsilon: p.epsilon } };
}
