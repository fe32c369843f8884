/** Scoring backends for batched full-gap passes and the chooser (see backend.ts). */
export { checkRows, checkScore } from './backend.js';
export type { BackendName, FeatureArray, FeatureRows, LossAugmentation, ScoringBackend } from '../src/core/scoring.js';
export { JsBackend } from './js.js';
export { NativeBackend } from './native.js';
export { GpuJsBackend, GPUJS_MODES, MAX_CHUNK_ROWS, MAX_CHUNK_VALUES, chunkRows, type GpuJsBackendOptions, type GpuJsMode } from './gpujs.js';
export { BACKEND_CHOICES, chooseBackend, createBackend, describeBackend, type BackendChoice, type BackendOptions, type BackendReport } from './choose.js';
