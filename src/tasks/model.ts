/**
 * The one model-file header (every task, every model kind), read and written here: the container of
 * `model-file.ts` (JSON header, little-endian arrays, CRC-32) with
 *
 *   meta:   { format: 'gapbcfw-model', version: 2, task, spec, fields, lambda, dual?, trainFingerprint?, training }
 *   arrays: { w, ...the task's arrays }
 *
 * `task` is the data kind the model was trained on, `spec` the model's kind and shape (src/tasks/model-kinds.ts),
 * `fields` the task's own header fields (src/tasks/types.ts `TaskFields`: a pose model's HOG cell size and mean
 * pose, an alignment model's corpus size and held-out fold; their arrays sit next to w). `dual` and
 * `trainFingerprint` let `eval` and `gap` certify the exact duality gap again on the training set.
 *
 * Files of the earlier formats still load: `gapbcfw-model` without a version (chain, multiclass, segmentation and
 * sparse-chain models), `gapbcfw-segmentation-model`, `gapbcfw-pose` version 1 and `gapbcfw-alignment-model`.
 * @module
 */
import { check, FormatError } from '../core/errors.js';
import { checkModelSpec, modelDim, type ModelSpec } from './model-kinds.js';
import { taskOf } from './index.js';
import { DATA_KINDS, type DataKind, type ModelDescription, type TaskFields } from './types.js';
import { readModelFile, writeModelFile, type ModelArray } from '../io/model-file.js';
import type { OutputOptions } from '../io/output.js';

/** A trained model as stored on disk: what it is (task, shape, task fields), its weights and how it was trained. */
export interface TrainedModel extends ModelDescription {
  w: Float64Array;
  /** Regularisation of the training run (absent in pose files of the first format, which did not store it). */
  lambda?: number;
  /** Solver and settings used, for the record. */
  training: Record<string, unknown>;
  /**
   * Dual objective of the returned iterate and a fingerprint of the training set: evaluating the model on
   * the same training set again gives the exact duality gap (primal recomputed, dual from here).
   */
  dual?: number;
  trainFingerprint?: string;
}

/** The `format` of model files. */
export const MODEL_FORMAT = 'gapbcfw-model';
/** The header version this build writes. */
export const MODEL_HEADER_VERSION = 2;

/** The task the models of a kind were trained on, for files that do not say (every format before version 2). */
const TASK_OF_KIND: Record<ModelSpec['kind'], DataKind> = {
  chain: 'ocr',
  multiclass: 'libsvm',
  segmentation: 'horse',
  'sparse-chain': 'conll',
  pose: 'lsp',
  matching: 'alignment',
  graph: 'graph',
  multilabel: 'multilabel',
};

/** Header entries and arrays describing a model (task, spec, task fields): shared by model and path files. */
export function describeModel(d: ModelDescription): { meta: Record<string, unknown>; arrays: Record<string, ModelArray> } {
  for (const name of Object.keys(d.fields.arrays)) check(!/^w\d*$|^wInf$/.test(name), `task array '${name}' would collide with the weights`);
  return { meta: { task: d.task, spec: d.spec, fields: d.fields.meta }, arrays: { ...d.fields.arrays } };
}

/**
 * Reads the description of a model from a header (any version): the task (inferred from the model kind when the
 * file has none), the checked spec and the task's fields (checked by the task).
 * @throws FormatError naming `file`.
 */
export function readModelDescription(meta: Record<string, unknown>, arrays: Record<string, ModelArray>, file: string): ModelDescription {
  const spec = checkModelSpec(meta.spec, file);
  const task = meta.task === undefined ? TASK_OF_KIND[spec.kind] : meta.task;
  if (typeof task !== 'string' || !(DATA_KINDS as readonly string[]).includes(task)) throw new FormatError(`model header: unknown task ${JSON.stringify(task)}`, file);
  const fieldMeta = meta.fields ?? {};
  if (fieldMeta === null || typeof fieldMeta !== 'object' || Array.isArray(fieldMeta)) throw new FormatError("model header: 'fields' must be an object", file);
  const fields: TaskFields = { meta: fieldMeta as Record<string, unknown>, arrays: Object.fromEntries(Object.entries(arrays).filter(([name]) => !/^w\d*$|^wInf$/.test(name))) };
  taskOf(task as DataKind).checkFields?.(fields, file);
  return { task: task as DataKind, spec, fields };
}

/** Writes a trained model through src/io/output.ts (atomic onto a regular file; `-` is `options.stdout`). */
export function saveModel(path: string, model: TrainedModel, options?: OutputOptions): void {
  check(model.w.length > 0, 'cannot save an empty weight vector');
  const d = describeModel(model);
  writeModelFile(path, {
    meta: {
      format: MODEL_FORMAT,
      version: MODEL_HEADER_VERSION,
      ...d.meta,
      ...(model.lambda === undefined ? {} : { lambda: model.lambda }),
      training: model.training,
      ...(model.dual === undefined ? {} : { dual: model.dual }),
      ...(model.trainFingerprint === undefined ? {} : { trainFingerprint: model.trainFingerprint }),
    },
    arrays: { w: model.w, ...d.arrays },
  }, options);
}

/** Reads a model file of any format version; a file of another kind (a checkpoint, a path) or a corrupt one throws FormatError. */
export function loadModel(path: string): TrainedModel {
  const { meta, arrays } = readModelFile(path);
  const header = toCurrentHeader(meta, arrays, path);
  const description = readModelDescription(header, arrays, path);
  const w = arrays.w;
  if (!(w instanceof Float64Array)) throw new FormatError("model file has no f64 array 'w'", path);
  for (let j = 0; j < w.length; j++) {
    if (!Number.isFinite(w[j])) throw new FormatError(`w[${j}] is ${w[j]}: a model's weights must be finite`, path);
  }
  const expected = modelDim(description.spec);
  if (w.length !== expected) throw new FormatError(`w has length ${w.length}, the ${description.spec.kind} model needs ${expected}`, path);
  const lambda = header.lambda;
  if (lambda !== undefined && !(typeof lambda === 'number' && lambda > 0)) throw new FormatError(`model header: lambda must be a positive number, got ${JSON.stringify(lambda)}`, path);
  return {
    ...description,
    w,
    lambda: lambda as number | undefined,
    training: (header.training ?? {}) as Record<string, unknown>,
    dual: typeof header.dual === 'number' ? header.dual : undefined,
    trainFingerprint: typeof header.trainFingerprint === 'string' ? header.trainFingerprint : undefined,
  };
}

/** What the other files of the same container are, for the message when one is given as a model. */
const OTHER_FILES: Readonly<Record<string, string>> = {
  'gapbcfw-checkpoint': ': a checkpoint of train --checkpoint; continue it with train --resume',
  'gapbcfw-path': ': a regularization path; evaluate it with eval PATH DATA --lambda X',
  'gapbcfw-multiclass-fw': ': the weight matrix W of multiclass-fw (feature-major), not a structured model',
};

/** The header of a file of any model format, in the current version's terms (spec, task fields). */
function toCurrentHeader(meta: Record<string, unknown>, arrays: Record<string, ModelArray>, path: string): Record<string, unknown> {
  switch (meta.format) {
    case MODEL_FORMAT:
      if (meta.version !== undefined && meta.version !== MODEL_HEADER_VERSION) {
        throw new FormatError(`model header version ${JSON.stringify(meta.version)} is not supported by this gapbcfw (reads 1 and ${MODEL_HEADER_VERSION})`, path);
      }
      return meta;
    case 'gapbcfw-segmentation-model': // `gapbcfw train-horse` before version 2
      return {
        spec: { kind: 'segmentation', numFeatures: meta.dUnary, numLabels: 2, labelNames: ['background', 'foreground'], dPairwise: meta.dPairwise },
        lambda: meta.lambda,
        training: meta.training,
      };
    case 'gapbcfw-pose': // `gapbcfw pose train` (version 1): no lambda was stored
      if (meta.version !== 1) throw new FormatError(`pose model version ${JSON.stringify(meta.version)} is not supported`, path);
      return { spec: { kind: 'pose', options: meta.options }, fields: { sbin: meta.sbin, scale: meta.scale }, training: {} };
    case 'gapbcfw-alignment-model': // `gapbcfw align train` before version 2
      if (!(arrays.w instanceof Float64Array)) throw new FormatError("model file has no f64 array 'w'", path);
      return {
        spec: {
          kind: 'matching', numFeatures: arrays.w.length, features: meta.features,
          costFalsePositive: meta.costFalsePositive, costFalseNegative: meta.costFalseNegative, normaliser: meta.normaliser,
        },
        fields: { corpusPairs: meta.corpusPairs, ...(meta.heldOut ? { heldOut: meta.heldOut } : {}) },
        lambda: meta.lambda,
        training: { ...(meta.training as object), ...(meta.metrics ? { metrics: meta.metrics } : {}) },
      };
    default:
      throw new FormatError(`not a gapbcfw model (format '${String(meta.format)}'${OTHER_FILES[String(meta.format)] ?? '; a checkpoint or a path file?'})`, path);
  }
}
