import { check, FormatError } from '../core/errors.js';
import type { ModelSpec } from '../data/datasets.js';
import { readModelFile, writeModelFile } from './model-file.js';
import { parseSparseChainSpec } from '../data/conll.js';
import { sparseChainDim } from '../models/sparse-chain.js';

/** A trained model as stored on disk: its shape, weights and how it was trained. */
export interface TrainedModel {
  spec: ModelSpec;
  w: Float64Array;
  lambda: number;
  /** Solver and settings used, for the record. */
  training: Record<string, unknown>;
  /**
   * Dual objective of the returned iterate and a fingerprint of the training set: evaluating the model on
   * the same training set again gives the exact duality gap (primal recomputed, dual from here).
   */
  dual?: number;
  trainFingerprint?: string;
}

const FORMAT = 'gapbcfw-model';

/** Writes a trained model (atomic: temp file + rename). */
export function saveModel(path: string, model: TrainedModel): void {
  check(model.w.length > 0, 'cannot save an empty weight vector');
  writeModelFile(path, {
    meta: {
      format: FORMAT,
      spec: model.spec,
      lambda: model.lambda,
      training: model.training,
      ...(model.dual === undefined ? {} : { dual: model.dual }),
      ...(model.trainFingerprint === undefined ? {} : { trainFingerprint: model.trainFingerprint }),
    },
    arrays: { w: model.w },
  });
}

/** Reads a model written by `saveModel`; a file of another kind or a corrupt one throws FormatError. */
export function loadModel(path: string): TrainedModel {
  const { meta, arrays } = readModelFile(path);
  if (meta.format !== FORMAT) throw new FormatError(`not a gapbcfw model (format '${String(meta.format)}'; a checkpoint?)`, path);
  const spec = meta.spec as ModelSpec | undefined;
  if (spec?.kind === 'sparse-chain') parseSparseChainSpec(spec, path);
  else if (!spec || !['chain', 'multiclass', 'segmentation'].includes(spec.kind) || !(spec.numFeatures >= 1) || !(spec.numLabels >= 1)) {
    throw new FormatError('model header has no valid spec', path);
  } else if (spec.kind === 'segmentation' && !(Number.isInteger(spec.dPairwise) && spec.dPairwise >= 1)) {
    throw new FormatError('segmentation model header has no valid dPairwise', path);
  }
  const w = arrays.w;
  if (!(w instanceof Float64Array)) throw new FormatError("model file has no f64 array 'w'", path);
  const bad = w.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) throw new FormatError(`w[${bad}] is ${w[bad]}: a model's weights must be finite`, path);
  const expected =
    spec.kind === 'chain'
      ? spec.numLabels * spec.numFeatures + 2 * spec.numLabels + spec.numLabels ** 2
      : spec.kind === 'sparse-chain'
        ? sparseChainDim(spec.numFeatures, spec.numLabels)
        : spec.kind === 'segmentation'
          ? spec.numFeatures + spec.dPairwise
          : spec.numFeatures * spec.numLabels;
  if (w.length !== expected) throw new FormatError(`w has length ${w.length}, the ${spec.kind} model needs ${expected}`, path);
  return {
    spec,
    w,
    lambda: Number(meta.lambda),
    training: (meta.training ?? {}) as Record<string, unknown>,
    dual: typeof meta.dual === 'number' ? meta.dual : undefined,
    trainFingerprint: typeof meta.trainFingerprint === 'string' ? meta.trainFingerprint : undefined,
  };
}
