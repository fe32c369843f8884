/**
 * The batched exact pass of the segmentation model (DESIGN seam 4): node potentials u_i = f_i^T w_U and
 * Potts weights p_e = f_ij^T w_P of every image from the scoring backend (native SIMD on float32 features
 * by default; gpu.js or TypeScript when asked), the loss-augmented cuts of all images solved at once on
 * native threads (maxflowBatchSync), and each H_i(w) = L(y_i, y) - <w, psi_i(y)> recomputed in float64 from
 * the decoded labelling, <w, psi> on native threads with the arithmetic of the model's psi
 * (segmentationPsiDots), so exactly as the per-object path computes it. Predictions
 * (the plain cuts, no loss terms) come from the same potentials, solved in the same max-flow batch.
 */
import { performance } from 'node:perf_hooks';
import { availableParallelism } from 'node:os';
import type { FeatureRows, ScoringBackend } from '../../kernels/backend.js';
import { NativeBackend } from '../../kernels/native.js';
import type { BatchPass } from '../core/problem.js';
import { native } from '../native.js';
import { maxflowBatchSync } from '../maxflow.js';
import type { SegmentationGraph, SegmentationLabel, SegmentationModel } from './segmentation.js';

/** Images per max-flow batch (bounds the memory of the cut graphs held at once). */
const IMAGES_PER_BATCH = 256;

export function segmentationBatch(
  model: SegmentationModel,
  xs: readonly SegmentationGraph[],
  ys: readonly SegmentationLabel[],
  scoring: ScoringBackend = new NativeBackend(),
  threads: number = availableParallelism(),
): BatchPass<SegmentationLabel> {
  const { dUnary: dU, dPairwise: dP } = model;
  const rows: { unary: FeatureRows; pairwise: FeatureRows }[] = xs.map((x) => ({
    unary: scoring.prepare(x.unary, x.numNodes, dU),
    pairwise: scoring.prepare(x.pairwise, x.edgeFrom.length, dP),
  }));
  return (w, hinge, labels, predictions) => {
    if (!(w instanceof Float64Array) || w.length !== model.dim) throw new TypeError(`w must be a Float64Array of length ${model.dim}`);
    const wU = w.subarray(0, dU);
    const wP = w.subarray(dU);
    for (let start = 0; start < xs.length; start += IMAGES_PER_BATCH) {
      const end = Math.min(xs.length, start + IMAGES_PER_BATCH);
      const t0 = performance.now();
      const graphs = [];
      const plain = [];
      for (let i = start; i < end; i++) {
        const x = xs[i]!;
        const unary = new Float64Array(x.numNodes);
        const potts = new Float64Array(x.edgeFrom.length);
        scoring.score(rows[i]!.unary, wU, 1, unary);
        scoring.score(rows[i]!.pairwise, wP, 1, potts);
        graphs.push(model.cutGraph(model.cutFromPotentials(unary, potts, x, ys[i]!), x));
        if (predictions) plain.push(model.cutGraph(model.cutFromPotentials(unary, potts, x, null), x));
      }
      const t1 = performance.now();
      const cuts = maxflowBatchSync(predictions ? [...graphs, ...plain] : graphs, { threads });
      model.countCall(t1 - t0, performance.now() - t1, end - start);
      if (predictions) for (let i = start; i < end; i++) predictions[i] = cuts[graphs.length + i - start]!.segments;
      const part = xs.slice(start, end);
      const dots = new Float64Array(end - start);
      native.segmentationPsiDots(part.map((x) => x.unary), part.map((x) => x.pairwise), part.map((x) => x.edgeFrom), part.map((x) => x.edgeTo), ys.slice(start, end), cuts.slice(0, end - start).map((c) => c.segments), dU, dP, w, dots, threads);
      for (let i = start; i < end; i++) {
        let y: SegmentationLabel = cuts[i - start]!.segments;
        let h = model.loss(ys[i]!, y) - dots[i - start]!;
        if (h < 0) {
          // a float32 near-tie (or rounding) proposed a labelling below the ground truth, whose H is 0
          h = 0;
          y = ys[i]!;
        }
        hinge[i] = h;
        if (labels) labels[i] = y;
      }
    }
  };
}
