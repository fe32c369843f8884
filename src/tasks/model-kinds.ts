/**
 * The six model kinds a task can call for, and what a model file's `spec` says of each: enough to rebuild the
 * model (kind and shape), checked when read. Tasks share kinds: ocr and synthetic train chains, libsvm and idx
 * multiclass models.
 * @module
 */
import { FormatError, InputError } from '../core/errors.js';
import type { StructuredModel } from '../core/problem.js';
import { ChunkTagSet } from '../data/conll.js';
import { CONLL_TEMPLATE_SET, FeatureDictionary, type FeatureDictionaryJSON } from '../data/conll-features.js';
import { ChainModel, type DecodeBackend } from '../models/chain.js';
import { ALIGNMENT_FEATURE_NAMES, MatchingModel, type LossNormaliser } from '../models/matching.js';
import { MulticlassModel } from '../models/multiclass.js';
import { PoseModel, type PoseModelOptions } from '../models/pose.js';
import { SegmentationModel } from '../models/segmentation.js';
import { SparseChainModel, sparseChainDim } from '../models/sparse-chain.js';
import { GraphModel } from '../models/graph.js';
import { MultilabelModel } from '../models/multilabel.js';
import { GRAPH_ROUTINES, type GraphInferOptions, type GraphRoutine } from '../native/graph.js';
import { chainRules, type ChainRulesSpec } from '../models/chain-rules.js';

/** A linear chain over dense per-position features (OCR letters, the synthetic demo data). */
export interface ChainSpec {
  kind: 'chain';
  numFeatures: number;
  numLabels: number;
  labelNames: string[];
  /** Constraints and class weights (`--constraints`, `--forbid`, `--label-weights`), when any. */
  rules?: ChainRulesSpec;
}

/** The Crammer-Singer multiclass SSVM over sparse rows (LIBSVM, IDX). */
export interface MulticlassSpec {
  kind: 'multiclass';
  numFeatures: number;
  numLabels: number;
  labelNames: string[];
}

/** Superpixel segmentation with graph cuts: numFeatures unary and dPairwise edge features (HorseSeg-style). */
export interface SegmentationSpec {
  kind: 'segmentation';
  numFeatures: number;
  numLabels: 2;
  labelNames: string[];
  dPairwise: number;
}

/** Pictorial-structures pose estimation: the settings of {@link PoseModel} (JSON-serialisable). */
export interface PoseSpec {
  kind: 'pose';
  options: PoseModelOptions;
}

/**
 * What a sparse-chain model needs to be rebuilt, saved in the model file's header: dimensions, the tag
 * names (label id = index) and the attribute dictionary (attribute id = index), so that `tag` and `eval`
 * extract exactly the training features. d = numFeatures*numLabels + 2*numLabels + numLabels^2.
 */
export interface SparseChainSpec {
  kind: 'sparse-chain';
  /** F: size of the attribute dictionary. */
  numFeatures: number;
  /** K: number of chunk tags. */
  numLabels: number;
  /** Tag names, sorted; label id = index. */
  labelNames: string[];
  /** The attribute dictionary (templates, minimum frequency, attribute strings). */
  features: FeatureDictionaryJSON;
  /** Constraints and class weights (`--constraints`, `--forbid`, `--label-weights`), when any. */
  rules?: ChainRulesSpec;
}

/** Bipartite matching (word alignment): edge features and the asymmetric Hamming loss's settings. */
export interface MatchingSpec {
  kind: 'matching';
  numFeatures: number;
  /** Names of the edge features, in w's order (a model of another feature set cannot be read). */
  features: string[];
  costFalsePositive: number;
  costFalseNegative: number;
  normaliser: LossNormaliser;
}

/** How a graph or multi-label model's oracle chooses its routine (`--inference`, `--lp-iterations`). */
interface InferenceSpec {
  /** 'auto' or a routine of src/native/graph.ts. */
  inference: string;
  lpIterations?: number;
}

/** General graph labelling (`graph:`): node and edge feature counts, labels, the pairwise tables and the loss. */
export interface GraphSpec extends InferenceSpec {
  kind: 'graph';
  numFeatures: number;
  numLabels: number;
  labelNames: string[];
  /** 0: no edge features (one constant feature per edge). */
  numEdgeFeatures: number;
  pairwise: 'potts' | 'full';
  loss: 'hamming' | 'balanced';
  positivity: boolean;
}

/** Multi-label classification over a label graph (`multilabel:`); the edges are kept (the Chow-Liu tree depends on the training labels). */
export interface MultilabelSpec extends InferenceSpec {
  kind: 'multilabel';
  numFeatures: number;
  numLabels: number;
  labelNames: string[];
  labelGraph: 'independent' | 'tree' | 'full';
  edges: [number, number][];
  positivity: boolean;
}

/** What a model needs to be rebuilt: its kind and shape (saved in model files). */
export type ModelSpec = ChainSpec | MulticlassSpec | SegmentationSpec | SparseChainSpec | PoseSpec | MatchingSpec | GraphSpec | MultilabelSpec;

/** A model kind: how its spec is checked, how its model is built, and its shape in words. */
interface ModelKind<S extends ModelSpec> {
  /** Checks a spec read from a file (the kind is already known to match). @throws FormatError naming `file`. */
  check(spec: S, file: string): void;
  build(spec: S, backend: DecodeBackend): StructuredModel<unknown, unknown>;
  /** The dimension of w. */
  dim(spec: S): number;
  /** The shape in words (two specs of one shape read the same data). */
  shape(spec: S): string;
}

const positiveInt = (x: unknown) => Number.isInteger(x) && (x as number) >= 1;

function checkLabelled(spec: { numFeatures: number; numLabels: number; labelNames: unknown }, file: string): void {
  if (!positiveInt(spec.numFeatures) || !positiveInt(spec.numLabels)) throw new FormatError('model header: spec needs positive integers numFeatures and numLabels', file);
  if (!Array.isArray(spec.labelNames) || spec.labelNames.length !== spec.numLabels || spec.labelNames.some((s) => typeof s !== 'string')) {
    throw new FormatError('model header: spec.labelNames must list numLabels names', file);
  }
}

/** Checks the constraints and class weights of a chain spec against its labels. */
function checkRules(spec: { labelNames: string[]; rules?: ChainRulesSpec }, file: string): void {
  if (spec.rules === undefined) return;
  try {
    chainRules(spec.labelNames, spec.rules);
  } catch (e) {
    throw new FormatError(`model header: spec.rules: ${(e as Error).message}`, file);
  }
}

const asModel = <X, Y>(m: StructuredModel<X, Y>) => m as unknown as StructuredModel<unknown, unknown>;

const KINDS: { [K in ModelSpec['kind']]: ModelKind<Extract<ModelSpec, { kind: K }>> } = {
  chain: {
    check: (s, file) => {
      checkLabelled(s, file);
      checkRules(s, file);
    },
    build: (s, backend) => asModel(new ChainModel({ numFeatures: s.numFeatures, numLabels: s.numLabels, backend, rules: chainRules(s.labelNames, s.rules ?? {}) })),
    dim: (s) => s.numLabels * s.numFeatures + 2 * s.numLabels + s.numLabels ** 2,
    shape: (s) => `chain model with ${s.numFeatures} features and ${s.numLabels} labels`,
  },
  multiclass: {
    check: checkLabelled,
    build: (s) => asModel(new MulticlassModel(s.numFeatures, s.numLabels)),
    dim: (s) => s.numFeatures * s.numLabels,
    shape: (s) => `multiclass model with ${s.numFeatures} features and ${s.numLabels} classes`,
  },
  segmentation: {
    check: (s, file) => {
      checkLabelled(s, file);
      if (!positiveInt(s.dPairwise)) throw new FormatError('model header: segmentation spec needs a positive integer dPairwise', file);
    },
    build: (s) => asModel(new SegmentationModel({ dUnary: s.numFeatures, dPairwise: s.dPairwise })),
    dim: (s) => s.numFeatures + s.dPairwise,
    shape: (s) => `segmentation model with ${s.numFeatures} unary and ${s.dPairwise} pairwise features`,
  },
  'sparse-chain': {
    check: (s, file) => void parseSparseChainSpec(s, file),
    build: (s, backend) => asModel(new SparseChainModel({ numFeatures: s.numFeatures, numLabels: s.numLabels, backend, rules: chainRules(s.labelNames, s.rules ?? {}) })),
    dim: (s) => sparseChainDim(s.numFeatures, s.numLabels),
    shape: (s) => `sparse-chain model with ${s.numFeatures} attributes and ${s.numLabels} tags`,
  },
  pose: {
    check: (s, file) => {
      if (s.options === null || typeof s.options !== 'object' || !Array.isArray(s.options.parents) || !(Array.isArray(s.options.meanOffsets) || Array.isArray(s.options.typeOffsets))) {
        throw new FormatError('model header: pose spec needs options with parents and meanOffsets or typeOffsets', file);
      }
      try {
        new PoseModel(s.options);
      } catch (e) {
        throw new FormatError(`model header: pose options: ${(e as Error).message}`, file);
      }
    },
    build: (s) => asModel(new PoseModel(s.options)),
    dim: (s) => new PoseModel(s.options).dim,
    shape: (s) => {
      const states = s.options.typeOffsets?.reduce((a, t) => a + t.length, 0) ?? s.options.parents.length;
      const levels = s.options.scales?.length ?? 1;
      const mixtures = states > s.options.parents.length || levels > 1 ? `, ${states} part types, ${levels} pyramid level(s)` : '';
      return `pose model with ${s.options.parents.length} parts${mixtures} and ${s.options.filterSize ?? 5}x${s.options.filterSize ?? 5} filters`;
    },
  },
  matching: {
    check: (s, file) => {
      if (!Array.isArray(s.features) || s.features.join('\n') !== ALIGNMENT_FEATURE_NAMES.join('\n')) {
        throw new FormatError('the model was trained with another alignment feature set than this version computes', file);
      }
      if (s.numFeatures !== s.features.length) throw new FormatError('model header: matching spec numFeatures differs from its feature list', file);
      for (const k of ['costFalsePositive', 'costFalseNegative'] as const) {
        if (!(typeof s[k] === 'number' && s[k] >= 0 && Number.isFinite(s[k]))) throw new FormatError(`model header: matching spec ${k} must be a number >= 0`, file);
      }
      if (!['links', 'rows', 'none'].includes(s.normaliser)) throw new FormatError(`model header: unknown loss normaliser '${String(s.normaliser)}'`, file);
    },
    build: (s) =>
      asModel(new MatchingModel({ numFeatures: s.numFeatures, costFalsePositive: s.costFalsePositive, costFalseNegative: s.costFalseNegative, normaliser: s.normaliser })),
    dim: (s) => s.numFeatures,
    shape: (s) => `matching model with ${s.numFeatures} edge features`,
  },
  graph: {
    check: (s, file) => {
      checkLabelled(s, file);
      if (!(Number.isInteger(s.numEdgeFeatures) && s.numEdgeFeatures >= 0)) throw new FormatError('model header: graph spec needs an integer numEdgeFeatures >= 0', file);
      if (!['potts', 'full'].includes(s.pairwise) || !['hamming', 'balanced'].includes(s.loss) || typeof s.positivity !== 'boolean') {
        throw new FormatError('model header: graph spec needs pairwise potts|full, loss hamming|balanced and a boolean positivity', file);
      }
      checkInference(s, file);
    },
    build: (s) => asModel(new GraphModel({ numFeatures: s.numFeatures, numLabels: s.numLabels, numEdgeFeatures: s.numEdgeFeatures, pairwise: s.pairwise, loss: s.loss, positivity: s.positivity, inference: inferenceOptions(s) })),
    dim: (s) => s.numFeatures * s.numLabels + Math.max(s.numEdgeFeatures, 1) * (s.pairwise === 'potts' ? 1 : s.numLabels ** 2),
    shape: (s) => `graph model with ${s.numFeatures} node features, ${s.numEdgeFeatures} edge features, ${s.numLabels} labels and ${s.pairwise} pairwise weights`,
  },
  multilabel: {
    check: (s, file) => {
      checkLabelled(s, file);
      if (!['independent', 'tree', 'full'].includes(s.labelGraph) || !Array.isArray(s.edges) || typeof s.positivity !== 'boolean') {
        throw new FormatError('model header: multilabel spec needs labelGraph independent|tree|full, its edges and a boolean positivity', file);
      }
      checkInference(s, file);
      try {
        new MultilabelModel({ numFeatures: s.numFeatures, numLabels: s.numLabels, edges: s.edges });
      } catch (e) {
        throw new FormatError(`model header: multilabel spec: ${(e as Error).message}`, file);
      }
    },
    build: (s) => asModel(new MultilabelModel({ numFeatures: s.numFeatures, numLabels: s.numLabels, edges: s.edges, positivity: s.positivity, inference: inferenceOptions(s) })),
    dim: (s) => s.numLabels * (s.numFeatures + 1) + 4 * s.edges.length,
    // The edges are part of the shape: data encoded for one label graph is read by a model of that graph only.
    shape: (s) => `multilabel model with ${s.numFeatures} features, ${s.numLabels} labels and a ${s.labelGraph} label graph of ${s.edges.length} edges`,
  },
};

function checkInference(s: InferenceSpec, file: string): void {
  if (s.inference !== 'auto' && !(GRAPH_ROUTINES as readonly string[]).includes(s.inference)) throw new FormatError(`model header: unknown inference '${String(s.inference)}'`, file);
  if (s.lpIterations !== undefined && !positiveInt(s.lpIterations)) throw new FormatError('model header: lpIterations must be a positive integer', file);
}

function inferenceOptions(s: InferenceSpec): GraphInferOptions {
  return { routine: s.inference as GraphRoutine | 'auto', ...(s.lpIterations !== undefined ? { lpIterations: s.lpIterations } : {}) };
}

/** The model kinds, in the order of the documentation's task table. */
export const MODEL_KINDS = Object.keys(KINDS) as ModelSpec['kind'][];

function kindOf<S extends ModelSpec>(spec: S): ModelKind<S> {
  return KINDS[spec.kind] as unknown as ModelKind<S>;
}

/**
 * Checks the `spec` of a model file header: a known kind with a valid shape.
 * @throws FormatError naming `file`.
 */
export function checkModelSpec(value: unknown, file: string): ModelSpec {
  const kind = (value as { kind?: unknown } | null)?.kind;
  if (value === null || typeof value !== 'object' || typeof kind !== 'string' || !(kind in KINDS)) {
    throw new FormatError(`model header has no valid spec (kind ${JSON.stringify(kind)}; known: ${MODEL_KINDS.join(', ')})`, file);
  }
  const spec = value as ModelSpec;
  kindOf(spec).check(spec, file);
  return spec;
}

/** The model a spec describes (`backend` picks the TypeScript or native decoders where a model has both). */
export function buildModel(spec: ModelSpec, backend: DecodeBackend = 'native'): StructuredModel<unknown, unknown> {
  return kindOf(spec).build(spec, backend);
}

/** The dimension of w of a spec's model. */
export function modelDim(spec: ModelSpec): number {
  return kindOf(spec).dim(spec);
}

/** The shape of a spec's model in words, e.g. "chain model with 129 features and 26 labels". */
export function describeSpec(spec: ModelSpec): string {
  return kindOf(spec).shape(spec);
}

/**
 * Throws an InputError unless data encoded as `data` can be read by a model of shape `model` (eval, gap,
 * predict on a trained model).
 */
export function checkSameShape(data: ModelSpec, model: ModelSpec): void {
  const a = describeSpec(data);
  const b = describeSpec(model);
  if (a !== b) throw new InputError(`the data calls for a ${a}; the model is a ${b}`);
}

/**
 * Checks the `spec` of a model file header for a sparse-chain model (what `loadModel` and `tag` read).
 * @throws FormatError naming `file` when a field is missing or inconsistent.
 */
export function parseSparseChainSpec(value: unknown, file?: string): SparseChainSpec {
  const s = value as Partial<SparseChainSpec> | null;
  const fail = (why: string): never => {
    throw new FormatError(`model header: ${why}`, file);
  };
  if (s === null || typeof s !== 'object' || s.kind !== 'sparse-chain') return fail("spec is not of kind 'sparse-chain'");
  if (!(Number.isInteger(s.numFeatures) && s.numFeatures! >= 1)) fail('numFeatures must be a positive integer');
  if (!(Number.isInteger(s.numLabels) && s.numLabels! >= 1)) fail('numLabels must be a positive integer');
  if (!Array.isArray(s.labelNames) || s.labelNames.length !== s.numLabels) fail('labelNames must list numLabels tags');
  let dictionary: FeatureDictionary;
  try {
    if (new Set(s.labelNames).size !== s.labelNames!.length || s.labelNames!.some((x) => typeof x !== 'string' || x === '')) fail('labelNames must be distinct non-empty strings');
    // CoNLL chunkers name their templates; other attribute sources (seq:, conll-columns:) are checked by their task.
    if (s.features?.templates === CONLL_TEMPLATE_SET) new ChunkTagSet(s.labelNames!);
    dictionary = FeatureDictionary.fromJSON(s.features, null);
  } catch (e) {
    return fail((e as Error).message);
  }
  if (dictionary.size !== s.numFeatures) fail(`the dictionary has ${dictionary.size} attributes but numFeatures is ${s.numFeatures}`);
  checkRules(s as SparseChainSpec, file ?? '<model>');
  return s as SparseChainSpec;
}
