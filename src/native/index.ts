/**
 * gapbcfw/native: the C++ primitives on their own: Boykov-Kolmogorov max-flow with search-tree reuse (one graph, a
 * threaded batch, DIMACS files), generalized distance transforms (Felzenszwalb-Huttenlocher), HOG features, SLIC
 * superpixels, and the process-wide thread count. Importing it loads the addon and nothing else of the package.
 *
 * @example
 * ```ts
 * import { maxflow } from 'gapbcfw/native';
 * // s -> 0 (3), 0 -> 1 (1), 1 -> t (2): the cut is the middle edge.
 * const r = maxflow({ numNodes: 2, edgeFrom: Int32Array.of(0), edgeTo: Int32Array.of(1), capFwd: Float64Array.of(1),
 *   sourceCap: Float64Array.of(3, 0), sinkCap: Float64Array.of(0, 2) });
 * console.log(r.flow); // 1
 * ```
 * @module
 */
export { setThreads, threads, threadCap, MAX_THREADS } from './threads.js';
export {
  MaxflowGraph,
  MaxflowBatch,
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
  type MaxflowBatchSolveOptions,
  type MaxflowCounters,
  type DimacsMaxflow,
  type DimacsReadOptions,
  type DimacsWriteOptions,
} from './maxflow.js';
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
export { hog, HOG_DIM, type HogFeatures } from './hog.js';
export { slic, type SlicOptions, type SlicResult } from './slic.js';
export { hogShape, filterResponses } from './hog.js';
export { NativeLoadError } from './addon.js';
export { GapbcfwError, InputError, FormatError, OptionError, MissingPeerError } from '../core/errors.js';
