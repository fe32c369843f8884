/**
 * gapbcfw/plot: figures like the papers' from training traces (JSONL), as Vega-Lite specs rendered to SVG or PNG,
 * and the images of predictions (horse overlays, pose skeletons). Needs the optional peers vega and vega-lite (SVG),
 * @resvg/resvg-js (PNG) and sharp (images): a missing one is a MissingPeerError naming the package to install.
 * @module
 */
export { readTraces, groupSeries, methodName, type TraceEvent, type TraceRun, type TraceSeries, type TraceContext } from './traces.js';
export { horseOverlayPng, poseSkeletonPng, HORSE_OVERLAY_COLOURS, type SkeletonJoints } from './overlays.js';
export { buildFigure, renderSvg, renderPng } from './figures.js';
export { readLambdaRows, lambdaFigure, LAMBDA_METRICS, type LambdaRow, type LambdaMetric } from './path-figure.js';
export { GapbcfwError, InputError, FormatError, OptionError, MissingPeerError } from '../core/errors.js';
