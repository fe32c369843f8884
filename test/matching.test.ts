import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './helpers/capture.js';
import { Hungarian, assignmentMinCost, maxWeightMatching } from '../src/models/hungarian.js';
import {
  ALIGNMENT_FEATURE_NAMES,
  AlignmentFeaturizer,
  BASE_FEATURES,
  CooccurrenceStats,
  MatchingModel,
  diceBaseline,
  type MatchingInput,
} from '../src/models/matching.js';
import { alignmentCounts, alignmentMetrics, sumCounts, type Link } from '../src/data/alignment.js';
import { modelProblem } from '../src/engine/problem.js';
import { InputError } from '../src/core/errors.js';
import { Rng } from '../src/core/rng.js';
import { dotSparse } from '../src/core/vector.js';
import { bcfw } from '../src/solvers/bcfw.js';
import { ssg } from '../src/solvers/ssg.js';
import { loadModel, saveModel } from '../src/tasks/model.js';
import { alignmentFields } from '../src/tasks/alignment.js';

/** Every partial matching of rows x cols (a[j] = k or -1, distinct k). */
function allMatchings(rows: number, cols: number): Int32Array[] {
  const out: Int32Array[] = [];
  const a = new Int32Array(rows);
  const used = new Uint8Array(cols);
  const rec = (j: number) => {
    if (j === rows) {
      out.push(Int32Array.from(a));
      return;
    }
    a[j] = -1;
    rec(j + 1);
    for (let k = 0; k < cols; k++) {
      if (used[k]) continue;
      used[k] = 1;
      a[j] = k;
      rec(j + 1);
      used[k] = 0;
    }
  };
  rec(0);
  return out;
}

/** Every injection of n rows into m >= n columns. */
function allInjections(n: number, m: number): Int32Array[] {
  return allMatchings(n, m).filter((a) => a.every((k) => k >= 0));
}

const matchingValue = (s: ArrayLike<number>, cols: number, a: Int32Array) => {
  let v = 0;
  a.forEach((k, j) => {
    if (k >= 0) v += s[j * cols + k]!;
  });
  return v;
};

function isMatching(a: Int32Array, cols: number): boolean {
  const seen = new Set<number>();
  for (const k of a) {
    if (k === -1) continue;
    if (k < 0 || k >= cols || seen.has(k)) return false;
    seen.add(k);
  }
  return true;
}

function randomScores(rng: Rng, n: number, integers: boolean): Float64Array {
  return Float64Array.from({ length: n }, () => (integers ? rng.int(7) - 3 : rng.next() * 4 - 2));
}

describe('Hungarian algorithm', () => {
  it('min-cost assignment equals brute force over all injections (n <= m <= 7, and transposed)', () => {
    const rng = new Rng(11);
    for (let n = 1; n <= 7; n++) {
      for (let m = n; m <= 7; m++) {
        for (let rep = 0; rep < 3; rep++) {
          const c = randomScores(rng, n * m, rep === 0);
          const all = allInjections(n, m);
          const best = Math.min(...all.map((a) => matchingValue(c, m, a)));
          const r = assignmentMinCost(c, n, m);
          expect(r.rowToCol.every((k) => k >= 0)).toBe(true);
          expect(isMatching(r.rowToCol, m)).toBe(true);
          expect(matchingValue(c, m, r.rowToCol)).toBeCloseTo(r.cost, 10);
          expect(r.cost).toBeCloseTo(best, 10);
          // The transposed problem (more rows than columns): every column gets a row.
          const t = new Float64Array(m * n);
          for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) t[j * n + i] = c[i * m + j]!;
          const rt = assignmentMinCost(t, m, n);
          expect(rt.rowToCol.filter((k) => k >= 0).length).toBe(n);
          expect(rt.cost).toBeCloseTo(best, 10);
        }
      }
    }
  });

  it('max-weight matching with null padding equals brute force over all matchings up to 7 x 7', () => {
    const rng = new Rng(5);
    const solver = new Hungarian();
    for (let rows = 1; rows <= 7; rows++) {
      for (let cols = 1; cols <= 7; cols++) {
        const all = allMatchings(rows, cols);
        for (let rep = 0; rep < (rows * cols > 30 ? 2 : 4); rep++) {
          const s = randomScores(rng, rows * cols, rep % 2 === 0);
          let best = -Infinity;
          for (const a of all) best = Math.max(best, matchingValue(s, cols, a));
          const out = new Int32Array(rows);
          const value = solver.maxWeightMatching(s, rows, cols, out);
          expect(isMatching(out, cols)).toBe(true);
          expect(value).toBeCloseTo(matchingValue(s, cols, out), 10);
          expect(value).toBeCloseTo(best, 10);
          // Only strictly positive edges are used.
          out.forEach((k, j) => {
            if (k >= 0) expect(s[j * cols + k]!).toBeGreaterThan(0);
          });
        }
      }
    }
  });

  it('all-negative scores give the empty matching; empty problems work', () => {
    const r = maxWeightMatching(Float64Array.of(-1, -2, -3, -0.5), 2, 2);
    expect(Array.from(r.match)).toEqual([-1, -1]);
    expect(r.score).toBe(0);
    expect(maxWeightMatching(new Float64Array(0), 0, 3).match.length).toBe(0);
    expect(Array.from(maxWeightMatching(new Float64Array(0), 2, 0).match)).toEqual([-1, -1]);
  });

  it('rejects NaN/Inf scores and bad shapes', () => {
    expect(() => maxWeightMatching(Float64Array.of(1, NaN), 1, 2)).toThrow(InputError);
    expect(() => maxWeightMatching(Float64Array.of(1, Infinity), 1, 2)).toThrow(/finite/);
    expect(() => maxWeightMatching(Float64Array.of(1, 2, 3), 2, 2)).toThrow(/expected 2 x 2/);
    expect(() => assignmentMinCost([1, NaN], 1, 2)).toThrow(InputError);
  });
});

/** A random MatchingInput of E x F pairs with D features. */
function randomInput(rng: Rng, E: number, F: number, D: number): MatchingInput {
  return { rows: E, cols: F, numFeatures: D, features: Float64Array.from({ length: E * F * D }, () => rng.next() * 2 - 1) };
}

describe('matching model', () => {
  const D = 4;

  it('loss augmentation equals the loss for every matching (every normaliser, tiny cases)', () => {
    const rng = new Rng(2);
    for (const normaliser of ['links', 'rows', 'none'] as const) {
      const model = new MatchingModel({ numFeatures: D, normaliser, costFalsePositive: 1, costFalseNegative: 3 });
      for (const [E, F] of [[3, 3], [3, 4], [4, 3], [2, 1]] as const) {
        const all = allMatchings(E, F);
        for (let rep = 0; rep < 3; rep++) {
          const yt = all[rng.int(all.length)]!;
          const delta = new Float64Array(E * F);
          const constant = model.addLossAugmentation(yt, F, delta);
          for (const y of all) expect(constant + matchingValue(delta, F, y)).toBeCloseTo(model.loss(yt, y), 12);
          expect(model.loss(yt, yt)).toBe(0);
        }
      }
    }
  });

  it('the loss counts false positives once and missed target links three times, normalised by the target links', () => {
    const model = new MatchingModel({ numFeatures: D });
    const yt = Int32Array.of(0, 1, -1, 3);
    expect(model.loss(yt, Int32Array.of(0, 1, -1, 3))).toBe(0);
    expect(model.loss(yt, Int32Array.of(0, 1, 2, 3))).toBeCloseTo(1 / 3, 14); // one extra link
    expect(model.loss(yt, Int32Array.of(0, -1, -1, 3))).toBeCloseTo(3 / 3, 14); // one miss
    expect(model.loss(yt, Int32Array.of(0, 2, -1, 3))).toBeCloseTo(4 / 3, 14); // wrong link = FP + miss
    expect(model.loss(yt, Int32Array.of(-1, -1, -1, -1))).toBeCloseTo(3, 14);
  });

  it('oracles, psi and labelScores agree with brute force on tiny cases', () => {
    const rng = new Rng(7);
    const model = new MatchingModel({ numFeatures: D });
    for (const [E, F] of [[3, 3], [4, 3], [3, 5], [1, 4]] as const) {
      const all = allMatchings(E, F);
      for (let rep = 0; rep < 4; rep++) {
        const x = randomInput(rng, E, F, D);
        const w = Float64Array.from({ length: D }, () => rng.next() * 2 - 1);
        const yt = all[rng.int(all.length)]!;
        model.validate(x, yt, 'tiny');
        const truth = model.score(w, x, yt);
        const aug = (y: Int32Array) => model.loss(yt, y) + model.score(w, x, y) - truth;
        let bestAug = -Infinity;
        let bestScore = -Infinity;
        for (const y of all) {
          bestAug = Math.max(bestAug, aug(y));
          bestScore = Math.max(bestScore, model.score(w, x, y));
          // <w, psi> = score(yt) - score(y)
          expect(dotSparse(w, model.psi(x, yt, y))).toBeCloseTo(truth - model.score(w, x, y), 12);
        }
        expect(aug(model.lossAugmentedDecode(w, x, yt))).toBeCloseTo(bestAug, 10);
        expect(model.score(w, x, model.decode(w, x))).toBeCloseTo(bestScore, 10);
        const labels = all.slice(0, 20);
        const out = new Float64Array(labels.length);
        model.labelScores(w, x, yt, labels, out);
        labels.forEach((y, q) => expect(out[q]!).toBeCloseTo(aug(y), 12));
      }
    }
  });

  it('validate rejects non-matchings, out-of-range columns, wrong shapes and NaN features', () => {
    const rng = new Rng(1);
    const model = new MatchingModel({ numFeatures: D });
    const x = randomInput(rng, 3, 3, D);
    expect(() => model.validate(x, Int32Array.of(0, 0, -1), 'ex')).toThrow(/matched twice/);
    expect(() => model.validate(x, Int32Array.of(0, 3, -1), 'ex')).toThrow(/outside -1..2/);
    expect(() => model.validate(x, Int32Array.of(0, 1), 'ex')).toThrow(/length 2, expected 3/);
    expect(() => model.validate({ ...x, numFeatures: 5 }, Int32Array.of(0, 1, 2), 'ex')).toThrow(/5 features/);
    const bad = Float64Array.from(x.features);
    bad[D + 1] = NaN;
    expect(() => model.validate({ ...x, features: bad }, Int32Array.of(0, 1, 2), 'ex')).toThrow(/feature 1 of pair \(0, 1\) is NaN/);
    expect(() => model.labelFromJSON([0, 0])).toThrow(InputError);
    expect(Array.from(model.labelFromJSON([2, -1, 0]))).toEqual([2, -1, 0]);
    expect(() => new MatchingModel({ numFeatures: 3, costFalseNegative: -1 })).toThrow(InputError);
  });

  it('BCFW variants and SSG train on a separable synthetic matching problem', () => {
    const rng = new Rng(9);
    const model = new MatchingModel({ numFeatures: D });
    const wStar = Float64Array.of(2, -1, 0.5, 1);
    const xs: MatchingInput[] = [];
    const ys: Int32Array[] = [];
    for (let i = 0; i < 20; i++) {
      const x = randomInput(rng, 2 + rng.int(4), 2 + rng.int(4), D);
      xs.push(x);
      ys.push(model.decode(wStar, x));
    }
    const problem = modelProblem(model, xs, ys);
    for (const o of [
      { step: 'fw' as const },
      { step: 'pairwise' as const, sampling: 'gap' as const },
      { step: 'hybrid' as const, cache: true },
    ]) {
      const r = bcfw(problem, { lambda: 0.01, gapThreshold: 1e-3, maxPasses: 300, gapCheck: 5, checkConsistency: true, ...o });
      expect(r.gapIsExact).toBe(true);
      expect(r.gap!).toBeLessThanOrEqual(1e-3);
    }
    const s = ssg(problem, { lambda: 0.01, maxPasses: 30 });
    expect(Number.isFinite(s.primal!)).toBe(true);
  });
});

describe('alignment features', () => {
  const corpus: [string[], string[]][] = [
    [['the', 'house'], ['la', 'chambre']],
    [['the', 'minister'], ['le', 'ministre']],
    [['the', 'house', 'rose'], ['la', 'chambre', 'se', 'lève']],
    [['the'], ['la']],
  ];

  it('Dice coefficients from sentence co-occurrence counts', () => {
    const stats = new CooccurrenceStats(corpus);
    expect(stats.numSentences).toBe(4);
    expect(stats.countE('the')).toBe(4);
    expect(stats.countE('The')).toBe(4); // lower-cased
    expect(stats.countF('chambre')).toBe(2);
    expect(stats.countJoint('house', 'chambre')).toBe(2);
    expect(stats.dice('house', 'chambre')).toBeCloseTo((2 * 2) / (2 + 2), 14);
    expect(stats.dice('the', 'le')).toBeCloseTo((2 * 1) / (4 + 1), 14);
    expect(stats.dice('house', 'la')).toBeCloseTo((2 * 2) / (2 + 3), 14);
    expect(stats.dice('unknown', 'le')).toBe(0);
    // A repeated word counts once per sentence pair.
    const rep = new CooccurrenceStats([[['a', 'a'], ['b', 'b', 'b']]]);
    expect(rep.countJoint('a', 'b')).toBe(1);
  });

  it('computes the documented features (names, ranges, exact match, Dice ranks, positions)', () => {
    const fz = new AlignmentFeaturizer(new CooccurrenceStats(corpus));
    expect(fz.numFeatures).toBe(ALIGNMENT_FEATURE_NAMES.length);
    expect(ALIGNMENT_FEATURE_NAMES.length).toBe(BASE_FEATURES.length + (12 * 11) / 2);
    expect(new Set(ALIGNMENT_FEATURE_NAMES).size).toBe(ALIGNMENT_FEATURE_NAMES.length);
    const e = ['the', 'house', 'Ottawa', ','];
    const f = ['la', 'chambre', 'ottawa', ',', 'fédéral'];
    const x = fz.featurize(e, f);
    expect(x.rows).toBe(4);
    expect(x.cols).toBe(5);
    const D = fz.numFeatures;
    const feat = (j: number, k: number, name: string) => x.features[(j * 5 + k) * D + ALIGNMENT_FEATURE_NAMES.indexOf(name)]!;
    for (const v of x.features) expect(v >= 0 && v <= 1).toBe(true);
    expect(feat(2, 2, 'exact')).toBe(1); // Ottawa / ottawa
    expect(feat(3, 3, 'bothPunct')).toBe(1);
    expect(feat(3, 3, 'exact*bothPunct')).toBe(1);
    expect(feat(0, 3, 'punctMismatch')).toBe(1);
    expect(feat(1, 1, 'dice')).toBeCloseTo(1, 6);
    expect(feat(1, 1, 'diceBestForE')).toBe(1);
    expect(feat(1, 0, 'diceBestForE')).toBe(0);
    expect(feat(2, 2, 'unseenE')).toBe(1);
    expect(feat(0, 0, 'relDist')).toBe(0);
    expect(feat(1, 4, 'relDist')).toBeCloseTo(Math.abs(1 / 4 - 4 / 5), 6);
    expect(feat(0, 1, 'bias')).toBe(1);
    expect(feat(1, 1, 'dice*diceBestForE')).toBeCloseTo(feat(1, 1, 'dice'), 6);
    // Accent folding: 'federal' vs 'fédéral' is an orthographic match, not an exact one.
    const y = fz.featurize(['federal'], ['fédéral']);
    const g = (name: string) => y.features[ALIGNMENT_FEATURE_NAMES.indexOf(name)]!;
    expect(g('exact')).toBe(0);
    expect(g('exactFolded')).toBe(1);
    expect(g('prefix4')).toBe(1);
    expect(g('lcsrCognate')).toBe(1);
    expect(g('editSim')).toBe(1);
  });

  it('the identical-or-Dice baseline links identical words first, then the most Dice-similar', () => {
    const stats = new CooccurrenceStats(corpus);
    expect(Array.from(diceBaseline(stats, ['the', 'house', 'ottawa'], ['ottawa', 'chambre', 'la'], 0.1))).toEqual([2, 1, 0]);
    // A high threshold keeps only identical words.
    expect(Array.from(diceBaseline(stats, ['the', 'house', 'ottawa'], ['ottawa', 'chambre', 'la'], 1.5))).toEqual([-1, -1, 0]);
  });
});

describe('alignment error rate', () => {
  const gold = { sure: [[0, 0], [1, 1]] as Link[], possible: [[2, 1]] as Link[] };

  it('AER, precision and recall on hand-made examples', () => {
    // A = {(0,0), (2,1), (2,2)}: |A n S| = 1, |A n P| = 2, |A| = 3, |S| = 2.
    const c = alignmentCounts([[0, 0], [2, 1], [2, 2]], gold);
    expect(c).toEqual({ proposed: 3, sure: 2, proposedSure: 1, proposedPossible: 2 });
    const m = alignmentMetrics(c);
    expect(m.aer).toBeCloseTo(1 - 3 / 5, 14);
    expect(m.precision).toBeCloseTo(2 / 3, 14);
    expect(m.recall).toBeCloseTo(1 / 2, 14);
    // A = S: AER 0; adding possible links keeps AER at 0; no links: AER 1, recall 0.
    expect(alignmentMetrics(alignmentCounts(Int32Array.of(0, 1, -1), gold)).aer).toBe(0);
    expect(alignmentMetrics(alignmentCounts([[0, 0], [1, 1], [2, 1]], gold)).aer).toBe(0);
    const none = alignmentMetrics(alignmentCounts(Int32Array.of(-1, -1, -1), gold));
    expect(none).toEqual({ aer: 1, precision: 1, recall: 0 });
    // Only wrong links: AER 1, precision 0.
    expect(alignmentMetrics(alignmentCounts([[0, 2]], gold))).toEqual({ aer: 1, precision: 0, recall: 0 });
  });

  it('sums counts over sentences before taking ratios', () => {
    const a = alignmentCounts([[0, 0]], gold); // 1 proposed, 1 sure hit of 2
    const b = alignmentCounts([[0, 0], [1, 1], [2, 1], [0, 1]], gold);
    const t = sumCounts([a, b]);
    expect(t).toEqual({ proposed: 5, sure: 4, proposedSure: 3, proposedPossible: 4 });
    expect(alignmentMetrics(t).aer).toBeCloseTo(1 - 7 / 9, 14);
  });
});

describe('gapbcfw align (prediction with a saved model)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-align-'));
  const modelPath = join(dir, 'tiny.gbm');
  const w = new Float64Array(ALIGNMENT_FEATURE_NAMES.length);
  w[ALIGNMENT_FEATURE_NAMES.indexOf('bias')] = -0.5;
  w[ALIGNMENT_FEATURE_NAMES.indexOf('exact')] = 2;
  w[ALIGNMENT_FEATURE_NAMES.indexOf('dice')] = 1;
  const corpus: [string[], string[]][] = [
    [['the', 'house'], ['la', 'chambre']],
    [['house', 'rose'], ['chambre', 'lève']],
  ];
  saveModel(modelPath, {
    task: 'alignment',
    spec: { kind: 'matching', numFeatures: w.length, features: [...ALIGNMENT_FEATURE_NAMES], costFalsePositive: 1, costFalseNegative: 3, normaliser: 'links' },
    fields: alignmentFields(corpus),
    w,
    lambda: 0.01,
    training: { solver: 'bcfw' },
  });

  const run = (...args: string[]) => cli('align', ...args);

  it('round-trips the model file (the corpus in its task fields)', () => {
    const m = loadModel(modelPath);
    expect(Array.from(m.w)).toEqual(Array.from(w));
    expect(m.task).toBe('alignment');
    expect(m.fields.meta.corpusPairs).toBe(2);
    expect(new TextDecoder().decode(m.fields.arrays.corpusF)).toBe('la chambre\nchambre lève');
  });

  it('prints one line of links per input pair, in either order, and a JSON summary', async () => {
    const pairs = join(dir, 'pairs.txt');
    writeFileSync(pairs, 'the house , ottawa ||| ottawa , chambre\n\nhouse ||| la chambre\n');
    const r = await run(modelPath, pairs, '--json');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBe(4);
    expect(lines[0]!.split(' ').sort()).toEqual(['1-2', '2-1', '3-0']);
    expect(lines[1]).toBe('');
    expect(lines[2]).toBe('0-1');
    expect(JSON.parse(lines[3]!)).toMatchObject({ command: 'predict', pairs: 3, links: 4 });
    const fe = await run(modelPath, pairs, '--order', 'fe');
    expect(fe.stdout.split('\n')[0]!.split(' ').sort()).toEqual(['0-3', '1-2', '2-1']);
    const words = await run(modelPath, pairs, '--words');
    expect(words.stdout.split('\n')[2]).toBe('house=chambre');
  });

  it('exits 2 with the line number on a malformed pairs file, and on usage errors', async () => {
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, 'the house ||| la chambre\nno separator here\n');
    const r = await run(modelPath, bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.txt:2: expected 'english tokens \|\|\| french tokens'/);
    expect((await run(modelPath, bad, '--order', 'xy')).code).toBe(2);
    expect((await run(join(dir, 'missing.gbm'), bad)).code).toBe(2);
    const notModel = join(dir, 'not-a-model.gbm');
    writeFileSync(notModel, 'hello');
    expect((await run(notModel, bad)).code).toBe(2);
    expect((await run('train', 'alignment:x')).stderr).toMatch(/align train was replaced by gapbcfw train alignment:DIR/);
    expect((await cli('train', 'alignment:/nowhere', '--solver', 'nope')).code).toBe(2);
    expect((await cli('train', 'alignment:/nowhere')).stderr).toMatch(/nowhere/);
    const help = await run('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: gapbcfw predict MODEL \[INPUT\]/);
  });
});
