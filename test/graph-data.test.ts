/**
 * The `graph:` JSON Lines reader (src/data/graph.ts): what it reads, what it refuses (with the line), and the graph
 * task through every command (train, eval, gap, predict, path) with its metrics and honest certificate fields.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGraphFile } from '../src/data/graph.js';
import { nodeWeightsOf } from '../src/models/graph.js';
import { cli } from './helpers/capture.js';

const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-graph-'));
const file = (name: string, lines: unknown[]) => {
  const p = join(dir, name);
  writeFileSync(p, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return p;
};

describe('graph: JSON Lines reader', () => {
  it('reads dense and sparse rows, edges, edge features, weights and names', () => {
    const d = readGraphFile(
      file('ok.jsonl', [
        { name: 'a', nodes: [[1, 0, 2], { indices: [1], values: [0.5] }], edges: [[0, 1]], edgeFeatures: [[1, 0.5]], labels: [0, 2], weights: [2, 1] },
        '',
        { id: 'b', nodes: [[0, 0, 1]], edges: [], labels: [1] },
      ]),
    );
    expect([d.numFeatures, d.numLabels, d.numEdgeFeatures, d.inputs.length, d.weighted]).toEqual([3, 3, 2, 2, true]);
    const x = d.inputs[0]!;
    expect(Array.from(x.rowStart)).toEqual([0, 2, 3]);
    expect(Array.from(x.indices)).toEqual([0, 2, 1]);
    expect(Array.from(x.values)).toEqual([1, 2, 0.5]);
    expect(Array.from(x.edgeFeatures!)).toEqual([1, 0.5]);
    expect(x.name).toBe('a');
    expect(d.inputs[1]!.name).toBe('b');
    expect(Array.from(nodeWeightsOf(d.labels[0]!)!)).toEqual([2, 1]);
    expect(nodeWeightsOf(d.labels[1]!)).toBeUndefined();
  });

  const good = { nodes: [[1, 0], [0, 1]], edges: [[0, 1]], labels: [0, 1] };
  it.each([
    ['not JSON', '{nodes', /bad\.jsonl:2: not a JSON object/],
    ['no nodes', { edges: [], labels: [] }, /bad\.jsonl:2: 'nodes' must be a non-empty array/],
    ['no edges', { nodes: [[1, 0]], labels: [0] }, /bad\.jsonl:2: 'edges' must be an array of \[u, v\] pairs \(\[\] for none\)/],
    ['labels of the wrong length', { ...good, labels: [0] }, /bad\.jsonl:2: 'labels' must list one label per node \(2\)/],
    ['a negative label', { ...good, labels: [0, -1] }, /bad\.jsonl:2: 'labels'\[1\] is -1/],
    ['an edge out of range', { ...good, edges: [[0, 2]] }, /bad\.jsonl:2: edge 0 is \[0, 2\]; nodes are 0\.\.1/],
    ['a self-loop', { ...good, edges: [[1, 1]] }, /bad\.jsonl:2: edge 0 is a self-loop/],
    ['an edge twice', { ...good, edges: [[0, 1], [1, 0]] }, /bad\.jsonl:2: edge 1 \[1, 0\] joins two nodes already joined/],
    ['a dense row of another length', { ...good, nodes: [[1, 0, 0], [0, 1, 0]] }, /bad\.jsonl:2: a dense node row has 3 features; line 1 has 2/],
    ['a NaN-like value', { ...good, nodes: [[1, 'x'], [0, 1]] }, /bad\.jsonl:2: node 0: a dense row must hold finite numbers/],
    ['unsorted sparse indices', { ...good, nodes: [{ indices: [1, 0], values: [1, 1] }, [0, 1]] }, /bad\.jsonl:2: node 0: sparse indices must be increasing/],
    ['edge features on one line only', { ...good, edgeFeatures: [[1]] }, /bad\.jsonl:1: no edgeFeatures; line 2 has 1 per edge/],
    ['a bad weight', { ...good, weights: [1, 0] }, /bad\.jsonl:2: 'weights' must list one finite weight > 0 per node/],
    ['a numeric name', { ...good, name: 3 }, /bad\.jsonl:2: 'name' \(or 'id'\) must be a string/],
  ])('refuses %s, naming the line', (_what, line, message) => {
    expect(() => readGraphFile(file('bad.jsonl', [good, line]))).toThrow(message);
  });

  it('a test file must fit the training shape (features, labels, edge features)', () => {
    const shape = { numFeatures: 2, numLabels: 2, numEdgeFeatures: 0 };
    expect(() => readGraphFile(file('t1.jsonl', [good, { ...good, labels: [0, 2] }]), shape)).toThrow(/t1\.jsonl:2: a node is labelled 2; labels are 0\.\.1 \(as the model\)/);
    expect(() => readGraphFile(file('t2.jsonl', [{ ...good, nodes: [[1, 0, 0], [1, 0, 0]] }]), shape)).toThrow(/t2\.jsonl:1: a dense node row has 3 features; the model has 2/);
    expect(() => readGraphFile(file('t3.jsonl', [{ ...good, edgeFeatures: [[1]] }]), shape)).toThrow(/t3\.jsonl:1: edgeFeatures given; the model has none/);
    expect(() => readGraphFile(file('t4.jsonl', [good]), { ...shape, numEdgeFeatures: 2 })).toThrow(/t4\.jsonl:1: no edgeFeatures; the model has 2 per edge/);
  });
});

describe('graph: through the commands', () => {
  // Chains whose labels the features tell, of 3-5 nodes, and every fourth one of 12 nodes closed into a loop.
  const lines = Array.from({ length: 24 }, (_, g) => {
    const N = g % 4 === 3 ? 12 : 3 + (g % 3);
    const labels = Array.from({ length: N }, (_, i) => (g + i) % 3);
    const nodes = labels.map((k, i) => [k === 0 ? 1 : 0, k === 1 ? 1 : 0, k === 2 ? 1 : 0, ((g * 7 + i) % 5) / 5]);
    const edges = Array.from({ length: N - 1 }, (_, i) => [i, i + 1]);
    if (N === 12) edges.push([0, N - 1]);
    return { name: `g${g}`, nodes, edges, labels };
  });
  const train = file('train.jsonl', lines.slice(0, 16));
  const test = file('test.jsonl', lines.slice(16));

  it('train (metrics, routine per example, exact certificate), eval, gap, predict and path', async () => {
    const model = join(dir, 'm.gbm');
    const t = await cli('train', `graph:${train}`, '--test', `graph:${test}`, '--lambda', '0.01', '--out', model, '--json', '--quiet');
    expect(t.code, t.stderr).toBe(0);
    const j = t.json!;
    expect(j.task).toBe('graph');
    // The loops' alpha-expansion has no bound: an honest run without a certificate.
    expect(j.gapIsExact).toBe(false);
    expect(j.oracle).toBe('approximate');
    expect(j.gapUpperBound).toBeUndefined();
    expect(j.accuracy).toBe(1);
    expect(j.classNormalisedError).toBe(0);
    expect([j.recall0, j.recall1, j.recall2]).toEqual([1, 1, 1]);
    // Chains by tree DP, the loops by alpha-expansion (K = 3, Potts weights >= 0), tiny graphs at w = 0 by enumeration.
    const inference = j.inference as Record<string, { calls: number; exact: number }>;
    expect(Object.keys(inference).sort()).toEqual(['expansion', 'tree']);
    expect(inference.expansion!.exact).toBe(0);
    expect(inference.tree!.exact).toBe(inference.tree!.calls);
    const e = await cli('eval', model, `graph:${train}`, '--part', 'train', '--json');
    expect(e.code, e.stderr).toBe(0);
    // The expansion examples make eval's exact pass approximate (no bound): honest fields, no certificate.
    expect(e.json!.gapIsExact).toBe(false);
    expect(e.json!.oracle).toBe('approximate');
    const g = await cli('gap', model, `graph:${train}`, '--json');
    expect(g.code, g.stderr).toBe(0);
    expect(g.json!.oracle).toBe('approximate');
    expect(g.json!.gapUpperBound).toBeUndefined();
    const human = await cli('gap', model, `graph:${train}`);
    expect(human.stdout).toMatch(/approximate oracle: the gap is an estimate from below, not a certificate; no upper bound/);
    const p = await cli('predict', model, `graph:${test}`, '--out', join(dir, 'pred.jsonl'), '--json');
    expect(p.code, p.stderr).toBe(0);
    const predicted = readFileSync(join(dir, 'pred.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as number[]);
    expect(predicted).toEqual(lines.slice(16).map((l) => l.labels));
    const path = await cli('path', `graph:${train}`, '--inference', 'lp', '--pairwise', 'full', '--epsilon', '0.5', '--min-lambda', '1', '--json', '--quiet');
    expect(path.code, path.stderr).toBe(0);
  }, 120_000);

  it('with --inference lp on chains the LP bound certifies (tight on trees), and the human summary never calls an approximate gap certified', async () => {
    const chains = file('chains.jsonl', lines.filter((l) => l.nodes.length < 12));
    const t = await cli('train', `graph:${chains}`, '--inference', 'lp', '--pairwise', 'full', '--lambda', '0.01', '--json', '--quiet');
    expect(t.code, t.stderr).toBe(0);
    expect(t.json!.gapIsExact).toBe(true);
    expect(Object.keys(t.json!.inference as object)).toEqual(['lp']);
    const x = await cli('train', `graph:${train}`, '--inference', 'expansion', '--lambda', '0.01', '--max-passes', '5');
    expect(x.code, x.stderr).toBe(0);
    expect(x.stdout).toMatch(/stopped \([a-zA-Z]+\); approximate oracle: the gap is an estimate from below, not a certificate/);
    expect(x.stdout).toMatch(/gapIsExact: false/);
    expect(x.stdout).toMatch(/oracle: approximate/);
  }, 120_000);

  it('bad usage: an option of another task, --no-positivity with full tables, a test file of another shape', async () => {
    expect((await cli('train', `graph:${train}`, '--label-graph', 'tree')).stderr).toMatch(/--label-graph applies to multilabel data, not graph/);
    expect((await cli('train', `graph:${train}`, '--pairwise', 'full', '--no-positivity')).stderr).toMatch(/--no-positivity applies to --pairwise potts/);
    const other = file('other.jsonl', [{ nodes: [[1, 0]], edges: [], labels: [0] }]);
    const r = await cli('train', `graph:${train}`, '--test', `graph:${other}`);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/other\.jsonl:1: a dense node row has 2 features; the model has 4/);
  });
});
