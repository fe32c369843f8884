/**
 * The task registry: every data kind of `KIND:PATH` with its task (src/tasks/<kind>.ts), and the one loader the
 * commands use. Adding a kind of data means one task file here and its model file in src/models/.
 * @module
 */
import { InputError } from '../core/errors.js';
import type { StructuredModel } from '../core/problem.js';
import { alignmentTask } from './alignment.js';
import { conllTask } from './conll.js';
import { horseTask } from './horse.js';
import { idxTask } from './idx.js';
import { libsvmTask } from './libsvm.js';
import { lspTask } from './lsp.js';
import { checkSameShape, type ModelSpec } from './model-kinds.js';
import { ocrTask } from './ocr.js';
import { syntheticTask } from './synthetic.js';
import { DATA_KINDS, parseDataSpec, type DataKind, type LoadOptions, type OptionSpec, type Task, type TaskData } from './types.js';

/** Every task, by data kind. */
export const TASKS: { readonly [K in DataKind]: Task } = {
  ocr: ocrTask,
  synthetic: syntheticTask,
  libsvm: libsvmTask,
  idx: idxTask,
  conll: conllTask,
  horse: horseTask,
  lsp: lspTask,
  alignment: alignmentTask,
};

/** The data kinds that train each model kind (the rows of the documentation's task table). */
export const TASKS_OF_MODEL: { readonly [K in ModelSpec['kind']]: readonly DataKind[] } = {
  chain: ['ocr', 'synthetic'],
  'sparse-chain': ['conll'],
  multiclass: ['libsvm', 'idx'],
  segmentation: ['horse'],
  pose: ['lsp'],
  matching: ['alignment'],
};

/** The task of a data kind. @throws InputError for an unknown kind. */
export function taskOf(kind: string): Task {
  if (!(DATA_KINDS as readonly string[]).includes(kind)) throw new InputError(`unknown data kind '${kind}' (one of ${DATA_KINDS.join(', ')})`);
  return TASKS[kind as DataKind];
}

/** Every option some task adds, once (tasks sharing an option, such as libsvm and idx, declare it once). */
export function taskOptions(): OptionSpec[] {
  const seen = new Map<string, OptionSpec>();
  for (const t of Object.values(TASKS)) for (const o of t.options) if (!seen.has(o.name)) seen.set(o.name, o);
  return [...seen.values()];
}

/**
 * Loads a `KIND:PATH` data set for training, or, with `options.model`, encoded for a trained model (whose shape
 * must then fit the data). `options.test` is a `KIND:PATH` of the same kind.
 * @throws InputError on bad usage (an option or split the task does not take) or unreadable data.
 */
export async function loadTask(dataSpec: string, options: LoadOptions = {}): Promise<TaskData> {
  const { kind, path } = parseDataSpec(dataSpec);
  const task = TASKS[kind];
  let test: string | undefined;
  if (options.test !== undefined) {
    const t = parseDataSpec(options.test);
    if (t.kind !== kind) throw new InputError(`--test must be of kind '${kind}', got '${t.kind}'`);
    if (!task.separateTest) throw new InputError(`--test does not apply to ${kind} data (it has its own test part)`);
    test = t.path;
  }
  if (options.split !== undefined && task.splits === undefined) {
    throw new InputError(`--split applies to ${Object.values(TASKS).filter((t) => t.splits).map((t) => t.kind).join(' and ')} data, not ${kind}`);
  }
  for (const [name, value] of Object.entries(options.values ?? {})) {
    if (value !== undefined && !task.options.some((o) => o.name === name)) throw new InputError(`--${name} does not apply to ${kind} data`);
  }
  const model = options.model;
  if (model && !TASKS_OF_MODEL[model.spec.kind].includes(kind)) {
    throw new InputError(`a ${model.spec.kind} model (trained on ${model.task} data) cannot read ${kind} data; it reads ${TASKS_OF_MODEL[model.spec.kind].join(' or ')}`);
  }
  const data = await task.load(path, { ...options, test });
  if (model) checkSameShape(data.spec, model.spec);
  return data;
}

export { DATA_KINDS, isDataSpec, parseDataSpec, type DataKind } from './types.js';

/**
 * The mean task loss of a part under its name (TaskData.meanLoss): `testError` / `trainError` (the papers' error),
 * or `testLoss` / `trainLoss` with the error names kept as aliases; nothing for an empty part.
 */
export function meanLossFields(data: Pick<TaskData, 'meanLoss'>, part: 'train' | 'test', value: number | undefined): Record<string, number> {
  if (value === undefined) return {};
  const error = part === 'test' ? 'testError' : 'trainError';
  return data.meanLoss === 'loss' ? { [part === 'test' ? 'testLoss' : 'trainLoss']: value, [error]: value } : { [error]: value };
}

/**
 * The mean task loss of a model's predictions on a part (named as TaskData.meanLoss says: `testError`, the papers' error, or
 * `testLoss` where the loss is not an error rate) and the task's own metrics of the same predictions (chunk F1, PCP,
 * AER, accuracy...).
 */
export function evaluatePart(data: TaskData, model: StructuredModel<unknown, unknown>, w: Float64Array, part: 'train' | 'test'): Record<string, number> {
  const set = part === 'test' ? data.test : data.train;
  if (!set) throw new InputError(`the data has no ${part} part`);
  const predictions: unknown[] = [];
  let loss = 0;
  for (let i = 0; i < set.length; i++) {
    const y = model.decode(w, set.input(i));
    loss += model.loss(set.label(i), y);
    predictions.push(y);
  }
  return { ...meanLossFields(data, part, set.length > 0 ? loss / set.length : 0), ...(set.length > 0 ? data.metrics?.(part, predictions) : {}) };
}
