/**
 * gapbcfw: structural SVMs trained with block-coordinate Frank-Wolfe (Lacoste-Julien et al. 2013) and
 * the improvements of "Minding the Gaps" (Osokin et al. 2016), over a C++ Node-API addon.
 *
 * The API in groups: **tasks** (a `KIND:PATH` data set loaded for its model, with its metrics and predictions:
 * what the CLI's `train`, `eval`, `gap`, `path` and `predict` use), **models** (the six structured models and the
 * `StructuredModel` / `Problem` interfaces), **solvers** (one block-coordinate engine, batch FW, SSG, the
 * regularization path, multiclass FW), **data** (readers and the `Dataset` interface), **io** (model files,
 * checkpoints, path files, traces and figures) and **native primitives** (max-flow, distance transforms, HOG,
 * scoring backends).
 *
 * @example
 * ```ts
 * import { loadTask, buildModel, modelProblem, train, evaluatePart } from 'gapbcfw';
 * const data = await loadTask('ocr:letter.data.gz', { split: 'small' });
 * const model = buildModel(data.spec);
 * const result = train(modelProblem(model, data.train), { solver: 'bcfw', lambda: 0.01, gapThreshold: 0.1 });
 * console.log(result.gap, evaluatePart(data, model, result.w, 'test').testError);
 * ```
 * @packageDocumentation
 */

// Core: errors, vectors, the seeded PRNG.
export { GapbcfwError, InputError, FormatError, OptionError, MissingPeerError } from './core/errors.js';
export { Rng } from './core/rng.js';
export { SparseAccumulator, copySparse, toDense, dot, dotSparse, type SparseVector } from './core/vector.js';
export type { SequenceExample, SequenceDataset, CsrMatrix, MulticlassDataset } from './core/data.js';

// Tasks: every KIND:PATH data kind, its model, metrics, predictions and model-file fields.
export { TASKS, TASKS_OF_MODEL, DATA_KINDS, taskOf, loadTask, parseDataSpec, isDataSpec, taskOptions, evaluatePart, type DataKind } from './tasks/index.js';
export type { Task, TaskData, TaskFields, LoadOptions, ModelDescription, OptionSpec, OptionValues, PredictionTarget, PredictionWriter, RawPrediction, TextSink } from './tasks/types.js';
export { buildModel, checkModelSpec, checkSameShape, describeSpec, modelDim, MODEL_KINDS, type ModelSpec, type ChainSpec, type MulticlassSpec, type SegmentationSpec, type PoseSpec, type MatchingSpec, type SparseChainSpec, type GraphSpec, type MultilabelSpec } from './tasks/model-kinds.js';
export { lspSplit } from './tasks/lsp.js';
export { loadConllTask, type ConllTask, type ConllTaskOptions } from './tasks/conll.js';
export { parseSparseChainSpec } from './tasks/model-kinds.js';
export { conllMetrics, tagSentences, type ConllMetrics } from './tasks/conll.js';
export { nodeMetrics } from './tasks/graph.js';
export { multilabelMetrics } from './tasks/multilabel.js';

// Models: the problem interface and the six structured models.
export { type Problem, type StructuredModel, type Bounds, type StepCost } from './core/problem.js';
export { certifiedGap, passGap, markApproximate, oracleSlack, gapStatus, type GapStatus } from './core/approximate.js';
export { ArrayDataset, arrayDataset, chunksOf, toArrays, fingerprintExamples, type Dataset, type DatasetChunk, type ReadStats } from './core/dataset.js';
export { type BatchPass } from './core/batch.js';
export { modelProblem, meanLoss, type ProblemOptions } from './engine/problem.js';
export { BatchEngine, preparedPass, type BatchModel, type EngineOptions } from './engine/engine.js';
export type { BatchDecoder, BatchOracle, Items, OracleCounters, PassOutput, PassProgress } from './core/batch.js';
export { ChainModel, sequencesXY, type ChainModelOptions, type DecodeBackend } from './models/chain.js';
export { SparseChainModel, sparseChainDim, sequenceLength, type SparseSequence, type SparseChainModelOptions } from './models/sparse-chain.js';
export type { ScoredLabelling } from './models/chain-base.js';
export { chainRules, checkLabelling, parseLabelWeights, TAG_SCHEMES, type ChainRules, type ChainRulesSpec, type TagScheme } from './models/chain-rules.js';
export { sequenceScores, spanScheme, type SequenceScores, type LabelScores, type SpanScheme } from './eval/sequences.js';
export { parseAttributeFile, formatAttributeLine, type AttributeSequence, type SequenceReadOptions } from './data/seq.js';
export { parseColumnFile, parseTemplates, defaultTemplates, templateAttributes, wordShape, type Template, type ColumnSentence } from './data/templates.js';
export { MulticlassModel, csrRows } from './models/multiclass.js';
export { GraphModel, withNodeWeights, nodeWeightsOf, graphLossWeights, checkGraphInput, type GraphInput, type GraphLabel, type GraphModelOptions, type GraphPairwise, type GraphLoss } from './models/graph.js';
export { MultilabelModel, type MultilabelLabel, type MultilabelModelOptions } from './models/multilabel.js';
export { MrfModel, MrfOracle, mrfScore, type RoutineStats } from './models/mrf.js';
export { SegmentationModel, segmentationLoss, withAreas, type SegmentationGraph, type SegmentationLabel, type SegmentationModelOptions } from './models/segmentation.js';
export { PoseModel, treeMaxSum, treeScore, topologicalOrder, type PoseModelOptions, type PoseInput, type PoseLabel, type PoseGrid, type CellOffset, type EdgeCost, type TreeMaxSumResult } from './models/pose.js';
export { pcpPck, poseScale, lspTree, LSP_TREE_PARENTS, LSP_STICKS, LSP_JOINT_COUNT, type PoseMetrics, type PosePoints } from './models/pose-eval.js';
export { poseTypeAnchors, assignPoseTypes, kmeans2d } from './models/pose-types.js';
export { MatchingModel, AlignmentFeaturizer, CooccurrenceStats, ALIGNMENT_FEATURE_NAMES, diceBaseline } from './models/matching.js';
export { Hungarian, assignmentMinCost, maxWeightMatching } from './models/hungarian.js';
// Solvers: the block-coordinate engine and its baselines, the regularization path, multiclass Frank-Wolfe.
export { train, trainAsync, createSolver, type TrainHooks } from './solvers/index.js';
export { SETTINGS, SOLVERS, STEPS, LAMBDA_RANGE, SEED_MAX, validateSettings, type TrainSettings, type SolverName, type StepType, type Sampling, type CacheSettings } from './solvers/settings.js';
export { describeRange, type NumberRange, type SettingSpec } from './core/settings.js';
export { bcfw, BcfwSolver, defaultBatch, type BcfwHooks, type BcfwResult, type BlockStepInfo, type WarmStart, type BcfwCounters } from './solvers/bcfw.js';
export { fw, FwSolver } from './solvers/fw.js';
export { ssg, SsgSolver } from './solvers/ssg.js';
export { cuttingPlane, CuttingPlaneSolver, type CuttingPlaneHooks, type CuttingPlaneResult } from './solvers/cutting-plane.js';
export {
  blockGaps,
  exactPass,
  fullOraclePass,
  fullOraclePassAsync,
  objectiveSettings,
  PassSolver,
  runSteps,
  type AsyncPassOptions,
  type ObjectiveSetting,
  type PassStep,
  type SolverPassProgress,
  type SolverHooks,
  type ProgressEvent,
  type SolverCheckpoint,
  type SolverResult,
  type StopReason,
} from './solvers/common.js';
export { regularizationPath, regularizationPathAsync, pathWeights, type PathOptions, type PathSolverSettings, type RegularizationPath, type Breakpoint } from './path/regpath.js';
export { gridSearch, gridSearchAsync, PAPER_GRID, type GridOptions, type GridPoint, type GridResult } from './path/grid.js';
export { SumTree } from './sampling/sumtree.js';

// Chunk (span) scores of sequence labelling, by conlleval's rules.
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

// IO: model files (one header for every task), checkpoints, gap shards, path files and safe outputs.
export { saveModel, loadModel, describeModel, readModelDescription, MODEL_FORMAT, MODEL_HEADER_VERSION, type TrainedModel } from './tasks/model.js';
export { readModelFile, writeModelFile, encodeModelFile, decodeModelFile, type ModelFileContent } from './io/model-file.js';
export { readCheckpoint, CheckpointWriter } from './solvers/checkpoint.js';
export { gapPartial, combineGapPartials, readGapPartials, parseShard, shardRange, type GapPartial, type GapSummary } from './engine/gap-shards.js';
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
export { savePath, loadPath } from './path/path-file.js';

// The scoring backends of batched passes, and the process-wide thread count of the native code.
export { setThreads, threads, threadCap, MAX_THREADS } from './native/threads.js';
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
