import { check, InputError } from '../core/errors.js';
import { ChainModel, type DecodeBackend } from '../models/chain.js';
import { MulticlassModel, csrRows } from '../models/multiclass.js';
import { SegmentationModel, withAreas } from '../models/segmentation.js';
import { HorseDataset } from './horse.js';
import { shouldStream, StreamedHorseSet } from './horse-stream.js';
import type { StructuredModel } from '../core/problem.js';
import { loadLibsvm } from './libsvm.js';
import { loadConllTask, type SparseChainSpec } from './conll.js';
import { SparseChainModel } from '../models/sparse-chain.js';
import { loadOcr, ocrSplit, ocrToSequences } from './ocr.js';
import { syntheticChain } from './synthetic.js';
import { arrayDataset, type ArrayDataset, type Dataset } from './dataset.js';

/** What a model needs to be rebuilt: its kind and shape (saved in model files). */
export type ModelSpec =
  | { kind: 'chain'; numFeatures: number; numLabels: number; labelNames: string[] }
  | { kind: 'multiclass'; numFeatures: number; numLabels: number; labelNames: string[] }
  /** Superpixel segmentation (HorseSeg-style): numFeatures = unary dimension, dPairwise = edge-feature dimension. */
  | { kind: 'segmentation'; numFeatures: number; numLabels: 2; labelNames: string[]; dPairwise: number }
  | SparseChainSpec;

/** A data set named on the command line, loaded: the model it calls for, a training part and an optional test part. */
export interface TaskData {
  spec: ModelSpec;
  train: Dataset;
  test?: Dataset;
  /** Human-readable summary, e.g. "ocr (split small): 626 train / 6251 test sequences". */
  description: string;
}

/** Data set kinds understood by `KIND:PATH`. */
export const DATA_KINDS = ['ocr', 'libsvm', 'synthetic', 'conll', 'alignment', 'horse'] as const;
export type DataKind = (typeof DATA_KINDS)[number];

/** Splits `KIND:PATH` (the path may itself contain colons). */
export function parseDataSpec(spec: string): { kind: DataKind; path: string } {
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  const path = colon < 0 ? '' : spec.slice(colon + 1);
  if (!(DATA_KINDS as readonly string[]).includes(kind)) {
    throw new InputError(`data set '${spec}' must be KIND:PATH with KIND one of ${DATA_KINDS.join(', ')}`);
  }
  if (kind !== 'synthetic' && path === '') throw new InputError(`data set '${spec}' has no path`);
  return { kind: kind as DataKind, path };
}

export interface LoadOptions {
  /** OCR split: small (default), large, all or fold:K. */
  split?: string;
  /** A separate test set (KIND:PATH of the same kind). */
  test?: string;
  /** Shape of an existing model (eval, predict): the label mapping and feature count must follow it. */
  model?: ModelSpec;
  /** conll: minimum training frequency of an attribute (default 3, the papers' d of about 1.6M). */
  minFrequency?: number;
  /** conll: use only the first N training sentences (horse: images). */
  limit?: number;
  /** horse: read the records from disk per oracle call instead of loading them (default: when the images used exceed 1 GiB). */
  stream?: boolean;
}

/** Loads a `KIND:PATH` data set (and an optional test set) for training or evaluation. */
export function loadTask(dataSpec: string, options: LoadOptions = {}): TaskData {
  const { kind, path } = parseDataSpec(dataSpec);
  const testSpec = options.test === undefined ? undefined : parseDataSpec(options.test);
  if (testSpec && testSpec.kind !== kind) throw new InputError(`--test must be of kind '${kind}', got '${testSpec.kind}'`);
  if (options.split !== undefined && kind !== 'ocr') throw new InputError(`--split applies to ocr data, not ${kind}`);
  switch (kind) {
    case 'ocr': {
      const split = options.split ?? 'small';
      const parts = ocrSplit(loadOcr(path), split);
      const train = ocrToSequences(parts.train);
      const testWords = testSpec ? ocrSplit(loadOcr(testSpec.path), 'all').train : parts.test;
      const spec: ModelSpec = { kind: 'chain', numFeatures: train.numFeatures, numLabels: train.numLabels, labelNames: train.labelNames };
      checkSameShape(spec, options.model);
      return {
        spec,
        train: sequenceSet(train.examples),
        test: testWords.length > 0 ? sequenceSet(ocrToSequences(testWords).examples) : undefined,
        description: `ocr (split ${split}): ${parts.train.length} train / ${testWords.length} test words`,
      };
    }
    case 'synthetic': {
      check(path === '' || path === 'chain', `synthetic data '${path}' is unknown (use synthetic: or synthetic:chain)`);
      const all = syntheticChain({ sequences: 400 });
      const spec: ModelSpec = { kind: 'chain', numFeatures: all.numFeatures, numLabels: all.numLabels, labelNames: all.labelNames };
      checkSameShape(spec, options.model);
      return {
        spec,
        train: sequenceSet(all.examples.slice(0, 300)),
        test: sequenceSet(all.examples.slice(300)),
        description: 'synthetic chain: 300 train / 100 test sequences, 8 states, 25 features',
      };
    }
    case 'conll': {
      const fixed = options.model;
      if (fixed) check(fixed.kind === 'sparse-chain', `a ${fixed.kind} model cannot read conll data`);
      const t = loadConllTask(path, {
        test: testSpec?.path,
        model: fixed as SparseChainSpec | undefined,
        minFrequency: options.minFrequency,
        limit: options.limit,
      });
      return { spec: t.spec, train: t.train, test: t.test, description: t.description };
    }
    case 'horse': {
      // A folder written by `gapbcfw prepare-horse` (format in src/data/horse.ts): the fixed train/test split.
      const ds = new HorseDataset(path);
      const spec: ModelSpec = { kind: 'segmentation', numFeatures: ds.meta.dUnary, numLabels: 2, labelNames: ['background', 'foreground'], dPairwise: ds.meta.dPairwise };
      checkSameShape(spec, options.model);
      const trainIdx = ds.indices('train').slice(0, options.limit ?? Infinity);
      const testIdx = ds.indices('test');
      if (shouldStream(ds, [...trainIdx, ...testIdx], options.stream)) {
        // Out of core (src/data/horse-stream.ts): records are read per oracle call; modelProblem streams.
        const [tr, te] = [new StreamedHorseSet(ds, trainIdx), new StreamedHorseSet(ds, testIdx)];
        return {
          spec,
          train: tr,
          test: te.length > 0 ? te : undefined,
          description: `horse: ${tr.length} train / ${te.length} test images (streamed from disk), ${spec.numFeatures} unary + ${spec.dPairwise} pairwise features`,
        };
      }
      const train = ds.load('train', options.limit ?? Infinity);
      const test = ds.load('test');
      // The loss is area-weighted: the ground truths carry their superpixel areas (StructuredModel.loss has no input).
      for (const part of [train, test]) part.ys.forEach((y, i) => withAreas(y, part.xs[i]!.areas));
      return {
        spec,
        train: withFingerprint(arrayDataset(train.xs, train.ys), train.fingerprint),
        test: test.xs.length > 0 ? withFingerprint(arrayDataset(test.xs, test.ys), test.fingerprint) : undefined,
        description: `horse: ${train.xs.length} train / ${test.xs.length} test images, ${spec.numFeatures} unary + ${spec.dPairwise} pairwise features`,
      };
    }
    case 'alignment':
      throw new InputError("alignment data trains with 'gapbcfw align train alignment:DIR --fold K' (the model carries its Dice corpus)");
    case 'libsvm': {
      const fixed = options.model;
      if (fixed) check(fixed.kind === 'multiclass', `a ${fixed.kind} model cannot read libsvm data`);
      const train = loadLibsvm(path, fixed ? { numFeatures: fixed.numFeatures, labelNames: fixed.labelNames, dropUnknownFeatures: true } : { minClasses: 2 });
      const spec: ModelSpec = { kind: 'multiclass', numFeatures: train.X.cols, numLabels: train.numLabels, labelNames: train.labelNames };
      const test = testSpec ? loadLibsvm(testSpec.path, { numFeatures: spec.numFeatures, labelNames: spec.labelNames, dropUnknownFeatures: true }) : undefined;
      return {
        spec,
        train: arrayDataset(csrRows(train.X), Array.from(train.y)),
        test: test ? arrayDataset(csrRows(test.X), Array.from(test.y)) : undefined,
        description: `libsvm: ${train.X.rows} train${test ? ` / ${test.X.rows} test` : ''} rows, ${spec.numFeatures} features, ${spec.numLabels} classes`,
      };
    }
  }
}

function sequenceSet(examples: { x: Float64Array; y: Int32Array }[]): ArrayDataset<Float64Array, Int32Array> {
  return arrayDataset(examples.map((e) => e.x), examples.map((e) => e.y));
}

/** An in-memory set whose format has a cheaper fingerprint than checksumming every input (horse sets: per-record CRCs). */
function withFingerprint<X, Y>(set: ArrayDataset<X, Y>, fingerprint: string): ArrayDataset<X, Y> {
  set.fingerprint = () => fingerprint;
  return set;
}

function checkSameShape(spec: ModelSpec, model?: ModelSpec): void {
  if (!model) return;
  check(
    model.kind === spec.kind && model.numFeatures === spec.numFeatures && model.numLabels === spec.numLabels,
    `the data calls for a ${spec.kind} model with ${spec.numFeatures} features and ${spec.numLabels} labels; the model is a ${model.kind} with ${model.numFeatures} and ${model.numLabels}`,
  );
}

/** The model a spec describes. */
export function buildModel(spec: ModelSpec, backend: DecodeBackend = 'native'): StructuredModel<unknown, unknown> {
  switch (spec.kind) {
    case 'chain':
      return new ChainModel({ numFeatures: spec.numFeatures, numLabels: spec.numLabels, backend }) as StructuredModel<unknown, unknown>;
    case 'multiclass':
      return new MulticlassModel(spec.numFeatures, spec.numLabels) as unknown as StructuredModel<unknown, unknown>;
    case 'segmentation':
      return new SegmentationModel({ dUnary: spec.numFeatures, dPairwise: spec.dPairwise }) as unknown as StructuredModel<unknown, unknown>;
    case 'sparse-chain':
      return new SparseChainModel({ numFeatures: spec.numFeatures, numLabels: spec.numLabels, backend }) as unknown as StructuredModel<unknown, unknown>;
  }
}

