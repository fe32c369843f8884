/** Nuclear-norm constrained multinomial logistic regression with full, stochastic, variance-reduced and approximate Frank-Wolfe. */
export { MulticlassLogistic, toClassMajor, totalWeight, type WeightedSubset } from './problem.js';
export { NuclearLmo, topSingularPair, nuclearNorm, symmetricEigen, symmetricEigenvalues, DENSE_FALLBACK_MAX, type LmoAnswer, type LmoOptions, type SingularPair, type PowerOptions } from './lmo.js';
export { HashBins, gaussianVector, hashRows, type BinInfo } from './bins.js';
export {
  trainMulticlassFw,
  trainMulticlassFwAsync,
  evaluateFull,
  exactLineSearch,
  type McfwHooks,
  type McfwResult,
  type McfwEvent,
  type McfwStopReason,
  type FullEvaluation,
} from './solvers.js';
export { MCFW_SOLVERS, MCFW_SETTINGS, validateMcfwSettings, type McfwSolverName, type McfwSettings } from './settings.js';
export { loadMulticlassData, holdoutSplit, selectRows, withBias, MULTICLASS_DATA_KINDS, type ShapeHint } from '../data/multiclass.js';
export { saveMulticlassFwWeights, loadMulticlassFwWeights, type MulticlassFwWeights } from './weights-file.js';
export { GapbcfwError, InputError, FormatError, OptionError, MissingPeerError } from '../core/errors.js';
