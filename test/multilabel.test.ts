/**
 * Multi-label classification over a label graph (src/models/multilabel.ts, src/data/multilabel.ts,
 * src/tasks/multilabel.ts): psi and scores against enumeration, the oracle exact for independent labels, trees,
 * attractive graphs (cuts) and small full graphs (exhaustive), the Chow-Liu tree against every spanning tree, the
 * reader's errors with line numbers, the metrics' formulas, and a run on the staged yeast set.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../src/core/rng.js';
import { dotSparse, type SparseVector } from '../src/core/vector.js';
import { oracleSlack } from '../src/core/approximate.js';
import { chowLiuTree, labelGraphEdges, readMultilabelFile } from '../src/data/multilabel.js';
import { MultilabelModel } from '../src/models/multilabel.js';
import { multilabelMetrics } from '../src/tasks/multilabel.js';
import { dataPath } from '../src/data/paths.js';
import { cli } from './helpers/capture.js';
import { labellings } from './helpers/mrf.js';
import { needsData } from './helpers/skips.js';

const rng = new Rng(53);
const F = 4;

function randomRow(): SparseVector {
  const indices = Int32Array.from([0, 1, 2, 3].filter(() => rng.next() < 0.7));
  return { indices, values: Float64Array.from(indices, () => rng.next() * 2 - 1), nnz: indices.length };
}

function bruteHinge(model: MultilabelModel, x: SparseVector, yTrue: Int32Array, w: Float64Array): number {
  let best = -Infinity;
  for (const y of labellings(model.numLabels, 2)) best = Math.max(best, model.loss(yTrue, y) - dotSparse(w, model.psi(x, yTrue, y)));
  return best;
}

describe('multi-label model', () => {
  const L = 5;
  const graphs = {
    independent: labelGraphEdges('independent', L, []),
    tree: [[0, 1], [1, 2], [1, 3], [3, 4]] as [number, number][],
    full: labelGraphEdges('full', L, []),
  };

  it.each(Object.entries(graphs))('%s label graph: labelScores = L - <w, psi>, and the oracle is exact against enumeration', (_name, edges) => {
    const model = new MultilabelModel({ numFeatures: F, numLabels: L, edges });
    for (let trial = 0; trial < 6; trial++) {
      const x = randomRow();
      const y = Int32Array.from({ length: L }, () => rng.int(2));
      const w = Float64Array.from({ length: model.dim }, () => (rng.next() * 2 - 1) * 2);
      const all = [...labellings(L, 2)];
      const out = new Float64Array(all.length);
      model.labelScores(w, x, y, all, out);
      all.forEach((z, k) => expect(out[k]).toBeCloseTo(model.loss(y, z) - dotSparse(w, model.psi(x, y, z)), 10));
      const label = model.lossAugmentedDecode(w, x, y);
      expect(oracleSlack(label)).toBe(0);
      expect(model.loss(y, label) - dotSparse(w, model.psi(x, y, label))).toBeCloseTo(bruteHinge(model, x, y, w), 10);
    }
    const routines = Object.keys(model.oracle.report());
    expect(routines).toEqual([edges.length === L * (L - 1) / 2 ? 'exhaustive' : 'tree']);
  });

  it('positivity makes every interaction attractive: the full graph is cut exactly, even past the exhaustive limit', () => {
    const model = new MultilabelModel({ numFeatures: F, numLabels: L, edges: graphs.full, positivity: true, inference: { exhaustiveLimit: 2 } });
    for (let trial = 0; trial < 6; trial++) {
      const x = randomRow();
      const y = Int32Array.from({ length: L }, () => rng.int(2));
      const w = Float64Array.from({ length: model.dim }, () => (rng.next() * 2 - 1) * 2);
      const { lower, upper } = model.bounds!;
      const clipped = w.map((v, j) => Math.min(Math.max(v, lower![j]!), upper![j]!));
      const label = model.lossAugmentedDecode(clipped, x, y);
      expect(model.loss(y, label) - dotSparse(clipped, model.psi(x, y, label))).toBeCloseTo(bruteHinge(model, x, y, clipped), 10);
    }
    expect(Object.keys(model.oracle.report())).toEqual(['cut']);
  });

  it('the Chow-Liu tree has the largest total mutual information of all spanning trees (4 labels: 16 trees)', () => {
    const labels = Array.from({ length: 60 }, () => {
      const a = rng.int(2);
      return Int32Array.of(a, rng.next() < 0.8 ? a : 1 - a, rng.int(2), rng.next() < 0.6 ? a : rng.int(2));
    });
    const info = (l: number, m: number) => {
      let mi = 0;
      for (let a = 0; a < 2; a++) {
        for (let b = 0; b < 2; b++) {
          const joint = labels.filter((y) => y[l] === a && y[m] === b).length / labels.length;
          const pa = labels.filter((y) => y[l] === a).length / labels.length;
          const pb = labels.filter((y) => y[m] === b).length / labels.length;
          if (joint > 0) mi += joint * Math.log(joint / (pa * pb));
        }
      }
      return mi;
    };
    const total = (edges: [number, number][]) => edges.reduce((s, [l, m]) => s + info(l, m), 0);
    const tree = chowLiuTree(labels, 4);
    expect(tree).toHaveLength(3);
    // Every spanning tree of 4 nodes from its Pruefer sequence.
    let best = -Infinity;
    for (const seq of labellings(2, 4)) {
      const degree = [1, 1, 1, 1];
      for (const v of seq) degree[v]!++;
      const edges: [number, number][] = [];
      for (const v of seq) {
        const leaf = degree.findIndex((d) => d === 1);
        edges.push([leaf, v]);
        degree[leaf]!--;
        degree[v]!--;
      }
      const [u, v] = degree.flatMap((d, k) => (d === 1 ? [k] : []));
      edges.push([u!, v!]);
      best = Math.max(best, total(edges));
    }
    expect(total(tree)).toBeCloseTo(best, 12);
  });

  it('metrics: Hamming loss, subset accuracy, micro and macro F1 by their formulas', () => {
    const truth = [Int32Array.of(1, 0, 1), Int32Array.of(0, 0, 1), Int32Array.of(0, 0, 0)];
    const pred = [Int32Array.of(1, 0, 0), Int32Array.of(0, 0, 1), Int32Array.of(0, 1, 0)];
    const m = multilabelMetrics(truth, pred);
    expect(m.hammingLoss).toBeCloseTo(2 / 9, 12);
    expect(m.subsetAccuracy).toBeCloseTo(1 / 3, 12);
    // tp 2 (label 0 once, label 2 once), fp 1 (label 1), fn 1 (label 2): micro F1 = 4 / 6.
    expect(m.microF1).toBeCloseTo(4 / 6, 12);
    // per label: F1 = 1 (label 0), 0 (label 1: one false positive), 2/3 (label 2).
    expect(m.macroF1).toBeCloseTo((1 + 0 + 2 / 3) / 3, 12);
  });
});

describe('multi-label LIBSVM reader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-multilabel-'));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('reads labels, an empty label set, 1-based features and comments', () => {
    const d = readMultilabelFile(file('ok.svm', '0,2 1:0.5 3:-1\n\n1:2 # no labels\n2 2:1e-1\n'));
    expect(d.numLabels).toBe(3);
    expect(d.numFeatures).toBe(3);
    expect(d.labels.map((y) => Array.from(y))).toEqual([[1, 0, 1], [0, 0, 0], [0, 0, 1]]);
    expect(Array.from(d.rows[0]!.indices)).toEqual([0, 2]);
    expect(d.rows[2]!.values[0]).toBeCloseTo(0.1, 15);
  });

  it.each([
    ['a, 1:1\n', /bad\.svm:1: label 'a'/],
    ['0 1:1\n0,0 1:1\n', /bad\.svm:2: label 0 appears twice/],
    ['0 1:1\n1 0:1\n', /bad\.svm:2: '0:1' is not idx:val/],
    ['0 2:1 1:1\n', /bad\.svm:1: feature 1 after 2/],
    ['0 1:x\n', /bad\.svm:1: '1:x': the value is not a finite number/],
    ['', /no examples/],
  ])('refuses %j with its line number', (text, message) => {
    expect(() => readMultilabelFile(file('bad.svm', text))).toThrow(message);
  });

  it('a test file must fit the training shape', () => {
    expect(() => readMultilabelFile(file('test.svm', '0 1:1\n5 1:1\n'), { numFeatures: 3, numLabels: 3 })).toThrow(/test\.svm:2: label 5; the model has labels 0\.\.2/);
    expect(() => readMultilabelFile(file('test2.svm', '0 9:1\n'), { numFeatures: 3, numLabels: 3 })).toThrow(/test2\.svm:1: feature 9/);
  });
});

describe('multilabel: on the staged scene set', needsData('multilabel', 'scene', 'scene_train.svm'), () => {
  it('trains a tree label graph through the CLI with an exact certificate and sensible metrics', async () => {
    const train = dataPath('multilabel', 'scene', 'scene_train.svm');
    const test = dataPath('multilabel', 'scene', 'scene_test.svm');
    const r = await cli('train', `multilabel:${train}`, '--test', `multilabel:${test}`, '--label-graph', 'tree', '--lambda', '0.01', '--max-passes', '10', '--json', '--quiet');
    expect(r.code, r.stderr).toBe(0);
    const j = r.json!;
    expect(j.gapIsExact).toBe(true);
    expect(j.oracle).toBe('exact');
    expect(j.hammingLoss as number).toBeLessThan(0.15); // all-negative predictions: 0.18
    expect(j.microF1 as number).toBeGreaterThan(0.5);
    expect(Object.keys(j.inference as object)).toEqual(['tree']);
  }, 120_000);
});
