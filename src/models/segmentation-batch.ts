/**
 * The batched oracle of the segmentation model (DESIGN seam 4, run by src/engine): the images are handed to a
 * prepared native batch once (features, graphs, ground truth and the loss weights a_i; native/scoring/
 * segmentation.h), with one set of cut-capacity arrays per image that the max-flow specs point at. Per call,
 * the items' s-t cut capacities come from the native scorer (u_i = f_i^T w_U and p_e = f_ij^T w_P with
 * score_rows' arithmetic, the loss augmentation, Potts weights clipped at 0), or for a whole pass from a
 * non-native scoring backend (gpu.js, TypeScript) through the model's own cut construction; the cuts of all
 * items are solved at once on native threads (a prepared MaxflowBatch: each image's graph keeps its native memory
 * and arc layout from pass to pass); and each H_i(w) = L(y_i, y) - <w, psi_i(y)> is
 * recomputed in float64 from the decoded labelling, <w, psi> natively with the arithmetic of the model's psi,
 * so exactly as the per-object path computes it.
 */
import { performance } from 'node:perf_hooks';
import { availableParallelism } from 'node:os';
import type { ScoringBackend } from '../../kernels/backend.js';
import type { BatchDecoder, Items } from '../engine/types.js';
import { itemsOption } from '../engine/items.js';
import { native } from '../native.js';
import { MaxflowBatch, type MaxflowGraphSpec } from '../maxflow.js';
import type { SegmentationGraph, SegmentationLabel, SegmentationModel } from './segmentation.js';

export function segmentationBatch(
  model: SegmentationModel,
  xs: readonly SegmentationGraph[],
  ys: readonly SegmentationLabel[],
  scoring?: ScoringBackend,
  threads: number = Math.min(availableParallelism(), 256),
): BatchDecoder<SegmentationLabel> {
  const { dUnary: dU, dPairwise: dP } = model;
  const n = xs.length;
  const images = xs.map((x, i) => ({
    unary: x.unary,
    pairwise: x.pairwise,
    edgeFrom: x.edgeFrom,
    edgeTo: x.edgeTo,
    truth: ys[i]!,
    lossWeights: model.lossWeights(x, ys[i]!),
    source: new Float64Array(x.numNodes),
    sink: new Float64Array(x.numNodes),
    potts: new Float64Array(x.edgeFrom.length),
  }));
  const batch = new native.SegmentationBatch({ dUnary: dU, dPairwise: dP, images });
  // The cut of image i: source side = label 0 (background); its capacities are rewritten in place per call.
  const specs: MaxflowGraphSpec[] = images.map((im, i) => ({ numNodes: xs[i]!.numNodes, edgeFrom: im.edgeFrom, edgeTo: im.edgeTo, capFwd: im.potts, capRev: im.potts, sourceCap: im.source, sinkCap: im.sink, capType: 'float64' }));
  const cuts = new MaxflowBatch(specs);
  const backend = scoring && scoring.name !== 'native' ? scoring : undefined;
  const rows = backend && xs.map((x) => ({ unary: backend.prepare(x.unary, x.numNodes, dU), pairwise: backend.prepare(x.pairwise, x.edgeFrom.length, dP) }));
  const segments: (SegmentationLabel | undefined)[] = new Array(n);
  const dots = new Float64Array(n);
  const each = (items: Items | null, f: (i: number) => void) => {
    if (items) for (let q = 0; q < items.count; q++) f(items.indices[q]!);
    else for (let i = 0; i < n; i++) f(i);
  };
  let scoringMs = 0;
  return {
    size: n,
    score: (w, items, plain) => {
      const t0 = performance.now();
      if (rows && items === null) {
        const wU = w.subarray(0, dU);
        const wP = w.subarray(dU);
        for (let i = 0; i < n; i++) {
          const x = xs[i]!;
          const unary = new Float64Array(x.numNodes);
          const potts = new Float64Array(x.edgeFrom.length);
          backend!.score(rows[i]!.unary, wU, 1, unary);
          backend!.score(rows[i]!.pairwise, wP, 1, potts);
          const graph = model.cutGraph(model.cutFromPotentials(unary, potts, x, plain ? null : ys[i]!), x);
          images[i]!.source.set(graph.sourceCap);
          images[i]!.sink.set(graph.sinkCap);
          images[i]!.potts.set(graph.capFwd as Float64Array);
        }
      } else {
        model.stats.clippedEdges += batch.capacities({ w, augmented: !plain, ...itemsOption(items), threads });
      }
      scoringMs = performance.now() - t0;
    },
    decode: (_w, items) => {
      const t0 = performance.now();
      cuts.solveSync({ ...itemsOption(items), threads });
      // SOURCE_SIDE = 0 = background, SINK_SIDE = 1 = foreground; a copy, since the batch's array is rewritten by the next call.
      each(items, (i) => (segments[i] = cuts.segments(i).slice()));
      model.countCall(scoringMs, performance.now() - t0, items ? items.count : n);
    },
    recheck: (w, items, hinge) => {
      batch.psiDots({ w, labels: segments, dots, ...itemsOption(items), threads });
      each(items, (i) => (hinge[i] = model.loss(ys[i]!, segments[i]!) - dots[i]!));
    },
    label: (i) => segments[i]!,
    truth: (i) => ys[i]!.slice(),
  };
}
