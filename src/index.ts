/**
 * gapbcfw: structural SVMs trained with block-coordinate Frank-Wolfe (Lacoste-Julien et al. 2013) and
 * the improvements of "Minding the Gaps" (Osokin et al. 2016), over a C++ Node-API addon.
 *
 * @example
 * ```ts
 * import { loadOcr, ocrSplit, ocrToSequences, ChainModel, modelProblem, train, meanLoss } from 'gapbcfw';
 * const { train: words, test } = ocrSplit(loadOcr('letter.data.gz'), 'small');
 * const tr = ocrToSequences(words).examples, te = ocrToSequences(test).examples;
 * const model = new ChainModel({ numFeatures: 129, numLabels: 26 });
 * const problem = modelProblem(model, tr.map((e) => e.x), tr.map((e) => e.y));
 * const result = train(problem, { solver: 'bcfw', lambda: 0.01, gapThreshold: 0.1 });
 * console.log(result.gap, meanLoss(model, result.w, te.map((e) => e.x), te.map((e) => e.y)));
 * ```
 * @packageDocumentation
 */
export { GapbcfwError, InputError, FormatError } from './core/errors.js';
export type { SequenceExample, SequenceDataset, CsrMatrix, MulticlassDataset } from './core/data.js';
export { Rng } from './core/rng.js';
export { SparseAccumulator, copySparse, toDense, dot, dotSparse, type SparseVector } from './core/vector.js';
export { modelProblem, meanLoss, type Problem, type StructuredModel, type ProblemOptions, type BatchPass, type Bounds } from './core/problem.js';
export {
  chooseBackend,
  createBackend,
  describeBackend,
  NativeBackend,
  GpuJsBackend,
  JsBackend,
  BACKEND_CHOICES,
  GPUJS_MODES,
  type ScoringBackend,
  type BackendName,
  type BackendChoice,
  type BackendOptions,
  type BackendReport,
  type FeatureArray,
  type FeatureRows,
  type LossAugmentation,
  type GpuJsMode,
  type GpuJsBackendOptions,
} from '../kernels/index.js';

export { ChainModel, sequencesXY, type ChainModelOptions, type DecodeBackend } from './models/chain.js';
export { MulticlassModel, csrRows } from './models/multiclass.js';

export { train, trainAsync, createSolver, SOLVERS, type SolverName, type TrainOptions, type AsyncTrainOptions } from './solvers/index.js';
export { bcfw, BcfwSolver, type BcfwOptions, type BcfwResult, type BlockStepInfo, type Sampling, type StepType, type CacheOptions, type WarmStart, type BcfwCounters } from './solvers/bcfw.js';
export { fw, FwSolver, type FwOptions } from './solvers/fw.js';
export { ssg, SsgSolver, type SsgOptions } from './solvers/ssg.js';
export {
  blockGaps,
  fullOraclePass,
  PassSolver,
  type CommonSolverOptions,
  type ProgressEvent,
  type SolverCheckpoint,
  type SolverResult,
  type StopReason,
} from './solvers/common.js';

export { loadOcr, parseOcr, ocrSplit, ocrToSequences, type OcrWord, type OcrData } from './data/ocr.js';
export { loadLibsvm, parseLibsvm, type LibsvmOptions } from './data/libsvm.js';
export { syntheticChain, type SyntheticChainOptions } from './data/synthetic.js';
export { loadTask, parseDataSpec, buildModel, type ModelSpec, type TaskData } from './data/datasets.js';
export { ArrayDataset, arrayDataset, chunksOf, toArrays, fingerprintExamples, type Dataset, type DatasetChunk } from './data/dataset.js';
export { dataRoot, dataPath, hasData } from './data/paths.js';

export { SparseChainModel, sparseChainDim, sequenceLength, type SparseSequence, type SparseChainModelOptions } from './models/sparse-chain.js';
export {
  conllAttributes,
  FeatureDictionary,
  CONLL_TEMPLATES,
  CONLL_TEMPLATE_SET,
  DEFAULT_MIN_FREQUENCY,
  type AttributeTemplate,
  type FeatureDictionaryJSON,
  type DictionaryOptions,
} from './models/conll-features.js';
export {
  parseConll,
  loadConll,
  formatConll,
  conllTokenCount,
  isChunkTag,
  ChunkTagSet,
  encodeConll,
  loadConllTask,
  parseSparseChainSpec,
  type ConllSentence,
  type ConllReadOptions,
  type ConllWriteOptions,
  type ConllSet,
  type ConllTask,
  type ConllTaskOptions,
  type SparseChainSpec,
} from './data/conll.js';
export {
  chunkScores,
  chunkScoresFromIds,
  extractChunks,
  formatChunkReport,
  ChunkEvaluator,
  type Chunk,
  type ChunkCounts,
  type ChunkScores,
  type PrfScores,
} from './eval/chunks.js';
export { conllMetrics, loadSparseChainModel, tagSentences, runTag, type ConllMetrics, type LoadedSparseChain } from './cli/conll.js';

export { saveModel, loadModel, type TrainedModel } from './io/model.js';
export { readModelFile, writeModelFile, encodeModelFile, decodeModelFile, type ModelFileContent } from './io/model-file.js';
export {
  writeOutput,
  StreamedOutput,
  checkOutputs,
  makeOutputDir,
  resolveOutput,
  OutputError,
  type OutputOptions,
  type StreamedOutputOptions,
  type OutputTarget,
  type ResolvedOutput,
} from './io/output.js';
export { CheckpointWriter } from './io/checkpoint.js';

export {
  distanceTransform1d,
  distanceTransform1dTs,
  distanceTransform2d,
  distanceTransform2dTs,
  distanceTransform2dAsync,
  unflattenArgmax,
  NO_ARGMAX,
  type GdtResult,
  type GdtOptions,
  type GdtAsyncOptions,
  type Gdt1dCoefficients,
  type Gdt2dCoefficients,
  type GridShape,
} from './gdt.js';

export {
  MaxflowGraph,
  maxflow,
  maxflowBatch,
  maxflowBatchSync,
  parseDimacsMaxflow,
  readDimacsMaxflow,
  writeDimacsMaxflow,
  SOURCE_SIDE,
  SINK_SIDE,
  type CapacityType,
  type CapacityArray,
  type MaxflowGraphSpec,
  type MaxflowResult,
  type MaxflowResiduals,
  type MaxflowBatchOptions,
  type DimacsMaxflow,
  type DimacsReadOptions,
  type DimacsWriteOptions,
} from './maxflow.js';

export { readTraces, groupSeries, methodName, type TraceEvent, type TraceRun, type TraceSeries, type TraceContext } from './plot/traces.js';
export { horseOverlayPng, poseSkeletonPng, HORSE_OVERLAY_COLOURS, type SkeletonJoints } from './plot/overlays.js';
export { buildFigure, renderSvg, renderPng } from './plot/figures.js';

export { MatchingModel, AlignmentFeaturizer, CooccurrenceStats, ALIGNMENT_FEATURE_NAMES, diceBaseline, Aligner, saveAlignmentModel, loadAlignmentModel } from './models/matching.js';
export { Hungarian, assignmentMinCost, maxWeightMatching } from './models/hungarian.js';
export { readHansards, alignmentFolds, alignmentMetrics, evaluateAlignments, type AlignedPair } from './data/alignment.js';
export { regularizationPath, pathWeights, type PathOptions, type RegularizationPath, type Breakpoint } from './path/regpath.js';
export { gridSearch, PAPER_GRID, type GridOptions, type GridPoint } from './path/grid.js';
export { savePath, loadPath } from './io/path-file.js';
export { SumTree } from './sampling/sumtree.js';
export * from './multiclass-fw/index.js';
export { parseIdx, loadIdx, loadIdxDataset, idxToDataset, type IdxArray, type IdxType, type IdxDatasetOptions } from './data/idx.js';

// HorseSeg-style segmentation (graph cuts) and its on-disk data (docs/horse-format.md), streamed or in memory.
export { SegmentationModel, segmentationLoss, withAreas, type SegmentationGraph, type SegmentationLabel, type SegmentationModelOptions } from './models/segmentation.js';
export { HorseDataset, writeHorseDataset, mergeHorseParts, prepareHorse, encodeRecord, decodeRecord, type HorseRecord, type HorseMeta } from './data/horse.js';
export { StreamedHorseSet, HorseRecordReader, shouldStream } from './data/horse-stream.js';
