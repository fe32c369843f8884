/**
 * Sequence labelling on users' data (issue 31): K-best Viterbi, max-marginals and constrained decoding against
 * brute-force enumeration; class-weighted training against the enumerated weighted objective; the seq: and
 * conll-columns: readers (malformed lines name file and line); seq: on CoNLL-2000 converted to CRFsuite's format
 * against conll: (bit for bit); the sequence metrics.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../src/core/errors.js';
import { Rng } from '../src/core/rng.js';
import { dotSparse } from '../src/core/vector.js';
import { loadConll } from '../src/data/conll.js';
import { conllAttributes } from '../src/data/conll-features.js';
import { dataPath } from '../src/data/paths.js';
import { formatAttributeLine, parseAttributeFile } from '../src/data/seq.js';
import { parseColumnFile, parseTemplates, templateAttributes, wordShape } from '../src/data/templates.js';
import { modelProblem } from '../src/engine/problem.js';
import { sequenceScores } from '../src/eval/sequences.js';
import { native } from '../src/native/addon.js';
import { ChainModel } from '../src/models/chain.js';
import { chainRules, checkLabelling, parseLabelWeights, type ChainRules } from '../src/models/chain-rules.js';
import { SparseChainModel, type SparseSequence } from '../src/models/sparse-chain.js';
import { train } from '../src/solvers/index.js';
import { allLabellings } from './helpers/tiny.js';
import { cli, cliWithInput } from './helpers/capture.js';
import { documentedCommands, runnable } from './helpers/docs.js';
import { readFileSync } from 'node:fs';
import { needsData } from './helpers/skips.js';

/** Score of a labelling over node scores and transitions, summed in the Viterbi order ((s + trans) + theta). */
function pathScore(theta: Float64Array, trans: Float64Array, K: number, y: Int32Array): number {
  let s = theta[y[0]!]!;
  for (let t = 1; t < y.length; t++) s = s + trans[y[t - 1]! + K * y[t]!]! + theta[t * K + y[t]!]!;
  return s;
}

/** The decoders' order of equal scores: compare the last state first, then the second-to-last, ... */
function reverseLex(a: Int32Array, b: Int32Array): number {
  for (let t = a.length - 1; t >= 0; t--) if (a[t] !== b[t]) return a[t]! - b[t]!;
  return 0;
}

/** Every labelling with a finite score, best first (ties in reverse-lexicographic order). */
function bruteRanking(theta: Float64Array, trans: Float64Array, T: number, K: number) {
  return allLabellings(T, K)
    .map((labels) => ({ labels, score: pathScore(theta, trans, K, labels) }))
    .filter((l) => l.score > -Infinity)
    .sort((a, b) => (b.score !== a.score ? b.score - a.score : reverseLex(a.labels, b.labels)));
}

/** Random node scores and transitions: small integers (many exact ties) or reals, some entries -Infinity. */
function randomChain(rng: Rng, T: number, K: number, integers: boolean, forbid: number) {
  const draw = () => (rng.next() < forbid ? -Infinity : integers ? rng.int(3) : rng.next() * 4 - 2);
  return { theta: Float64Array.from({ length: T * K }, draw), trans: Float64Array.from({ length: K * K }, draw) };
}

describe('K-best Viterbi and max-marginals (native) against enumeration', () => {
  it('the K best labellings and scores equal the sorted enumeration, K up to every labelling, ties reverse-lexicographic', () => {
    const rng = new Rng(31);
    let cases = 0;
    for (let trial = 0; trial < 300; trial++) {
      const T = 1 + rng.int(4);
      const K = 1 + rng.int(3);
      const integers = trial % 2 === 0;
      const { theta, trans } = randomChain(rng, T, K, integers, trial % 3 === 0 ? 0.25 : 0);
      const expected = bruteRanking(theta, trans, T, K);
      const N = K ** T + 1;
      const ys = new Int32Array(N * T);
      const scores = new Float64Array(N);
      const found = native.chainKbest(theta, T, K, trans, N, ys, scores);
      expect(found).toBe(expected.length);
      for (let r = 0; r < found; r++) {
        expect(Array.from(ys.subarray(r * T, (r + 1) * T)), `trial ${trial} rank ${r}`).toEqual(Array.from(expected[r]!.labels));
        expect(scores[r]).toBe(expected[r]!.score);
      }
      // A shorter list is the prefix of the full one; the best equals chainViterbi's labelling and score.
      const k = 1 + rng.int(Math.max(found, 1));
      const few = new Int32Array(k * T);
      const fewScores = new Float64Array(k);
      expect(native.chainKbest(theta, T, K, trans, k, few, fewScores)).toBe(Math.min(k, found));
      if (found > 0) {
        expect(Array.from(few.subarray(0, Math.min(k, found) * T))).toEqual(Array.from(ys.subarray(0, Math.min(k, found) * T)));
        const best = new Int32Array(T);
        expect(native.chainViterbi(theta, T, K, trans, best)).toBe(scores[0]);
        expect(Array.from(best)).toEqual(Array.from(ys.subarray(0, T)));
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(150);
  });

  it('max-marginals equal the best enumerated score with each label at each position (-Infinity where none is allowed)', () => {
    const rng = new Rng(32);
    for (let trial = 0; trial < 200; trial++) {
      const T = 1 + rng.int(4);
      const K = 1 + rng.int(3);
      const { theta, trans } = randomChain(rng, T, K, trial % 2 === 0, trial % 3 === 0 ? 0.3 : 0);
      const out = new Float64Array(T * K);
      native.chainMaxMarginals(theta, T, K, trans, out);
      const all = bruteRanking(theta, trans, T, K);
      for (let t = 0; t < T; t++) {
        for (let k = 0; k < K; k++) {
          const best = all.find((l) => l.labels[t] === k)?.score ?? -Infinity;
          if (best === -Infinity) expect(out[t * K + k]).toBe(-Infinity);
          else expect(out[t * K + k]!).toBeCloseTo(best, 12);
        }
      }
    }
  });

  it('refuses NaN and +Infinity scores with a RangeError (no crash)', () => {
    const out = new Float64Array(2);
    expect(() => native.chainMaxMarginals(Float64Array.of(NaN, 0), 1, 2, new Float64Array(4), out)).toThrow(/NaN/);
    expect(() => native.chainKbest(Float64Array.of(Infinity, 0), 1, 2, new Float64Array(4), 1, new Int32Array(1), new Float64Array(1))).toThrow(RangeError);
  });
});

/** A tiny sparse chain data set: n sequences over F attributes, labels in a BIO set. */
function tinySparse(seed: number, names: string[], rules: ChainRules, n = 6, maxT = 4) {
  const rng = new Rng(seed);
  const F = 5;
  const K = names.length;
  const model = new SparseChainModel({ numFeatures: F, numLabels: K, backend: 'native', rules });
  const js = new SparseChainModel({ numFeatures: F, numLabels: K, backend: 'js', rules });
  const xs: SparseSequence[] = [];
  const ys: Int32Array[] = [];
  const allowed = allLabellings(maxT, K);
  while (xs.length < n) {
    const T = 1 + rng.int(maxT);
    const ids: number[] = [];
    const offsets = [0];
    for (let t = 0; t < T; t++) {
      for (let f = 0; f < F; f++) if (rng.next() < 0.4) ids.push(f);
      offsets.push(ids.length);
    }
    // A random labelling that obeys the rules (the truth must).
    const candidates = allowed.map((y) => y.subarray(0, T)).filter((y) => checkLabelling(rules, y, names) === null);
    xs.push({ offsets: Int32Array.from(offsets), ids: Int32Array.from(ids) });
    ys.push(Int32Array.from(candidates[rng.int(candidates.length)]!));
  }
  return { model, js, xs, ys, F, K };
}

const BIO = ['B-LOC', 'B-PER', 'I-LOC', 'I-PER', 'O'];

describe('constrained decoding', () => {
  it('bio/iob2/bioes masks: I-X only after B-X or I-X; BIOES opens and closes spans', () => {
    const bio = chainRules(BIO, { constraints: 'bio' });
    const id = (name: string) => BIO.indexOf(name);
    const ok = (y: string[]) => checkLabelling(bio, Int32Array.from(y.map(id)), BIO) === null;
    expect(ok(['B-PER', 'I-PER', 'O', 'B-LOC'])).toBe(true);
    expect(ok(['O', 'I-PER'])).toBe(false);
    expect(ok(['B-LOC', 'I-PER'])).toBe(false);
    expect(ok(['I-PER'])).toBe(false);
    expect(chainRules(BIO, { constraints: 'iob2' })).toEqual(bio);
    const names = ['B-X', 'E-X', 'I-X', 'O', 'S-X'];
    const bioes = chainRules(names, { constraints: 'bioes' });
    const okE = (y: string[]) => checkLabelling(bioes, Int32Array.from(y.map((s) => names.indexOf(s))), names) === null;
    expect(okE(['B-X', 'I-X', 'E-X', 'S-X', 'O'])).toBe(true);
    expect(okE(['B-X', 'O'])).toBe(false);
    expect(okE(['B-X'])).toBe(false);
    expect(okE(['O', 'E-X'])).toBe(false);
    expect(() => chainRules(['O', 'NN'], { constraints: 'bio' })).toThrow(/'NN' does not follow the BIO scheme/);
    expect(() => chainRules(BIO, { forbid: ['O>Q'] })).toThrow(/A>B/);
  });

  it('every decoder (native, js, batched, n-best) equals brute force over the allowed labellings and never outputs a forbidden transition', () => {
    for (const spec of [{ constraints: 'bio' as const }, { forbid: ['O>B-PER', 'B-LOC>B-LOC'] }, { constraints: 'bioes' as const }]) {
      const names = spec.constraints === 'bioes' ? ['B-P', 'E-P', 'I-P', 'O', 'S-P'] : BIO;
      const rules = chainRules(names, spec);
      const { model, js, xs, ys, K } = tinySparse(7, names, rules, 8);
      const rng = new Rng(5);
      const batch = model.prepareBatch(xs, ys);
      for (let trial = 0; trial < 20; trial++) {
        const w = Float64Array.from({ length: model.dim }, () => rng.next() * 4 - 2);
        batch.score(w, null, true);
        batch.decode(w, null);
        for (let i = 0; i < xs.length; i++) {
          const T = ys[i]!.length;
          const allowed = allLabellings(T, K).filter((y) => checkLabelling(rules, y, names) === null);
          const score = (y: Int32Array) => model.score(w, xs[i]!, y);
          let best = allowed[0]!;
          for (const y of allowed) if (score(y) > score(best)) best = y;
          const decoded = model.decode(w, xs[i]!);
          expect(checkLabelling(rules, decoded, names)).toBeNull();
          expect(score(decoded)).toBeCloseTo(score(best), 10);
          expect(Array.from(js.decode(w, xs[i]!))).toEqual(Array.from(decoded));
          expect(Array.from(batch.label(i))).toEqual(Array.from(decoded));
          const list = model.nbest(w, xs[i]!, allowed.length + 2);
          expect(list.length).toBe(allowed.length);
          for (const l of list) {
            expect(checkLabelling(rules, l.labels, names)).toBeNull();
            expect(l.score).toBeCloseTo(score(l.labels), 10);
          }
          // The loss-augmented oracle too: brute force of L(y_i, y) + <w, phi(y)> over the allowed labellings.
          const aug = (y: Int32Array) => model.loss(ys[i]!, y) + score(y);
          const oracle = model.lossAugmentedDecode(w, xs[i]!, ys[i]!);
          expect(checkLabelling(rules, oracle, names)).toBeNull();
          expect(aug(oracle)).toBeCloseTo(Math.max(...allowed.map(aug)), 10);
        }
      }
    }
  });

  it('a training set whose truth breaks the constraints is refused', () => {
    const rules = chainRules(BIO, { constraints: 'bio' });
    const model = new SparseChainModel({ numFeatures: 2, numLabels: 5, rules });
    const x = { offsets: Int32Array.of(0, 1, 2), ids: Int32Array.of(0, 1) };
    expect(() => model.validate(x, Int32Array.of(4, 3), 'example 1')).toThrow(/example 1: the true labelling breaks the chain's constraints at position 1/);
  });
});

describe('class-weighted Hamming loss', () => {
  it('balanced and explicit weights', () => {
    expect(parseLabelWeights('balanced', ['A', 'B', 'O'], [1, 0, 3])).toEqual([2, 1, 4 / 6]);
    expect(parseLabelWeights('O=0.5,B=2', ['A', 'B', 'O'], [1, 1, 1])).toEqual([1, 2, 0.5]);
    expect(() => parseLabelWeights('Q=1', ['A'], [1])).toThrow(/LABEL=WEIGHT/);
  });

  it('training reaches the enumerated optimum of the weighted objective (and the weights change it), dense and sparse chains', () => {
    const c = [3, 0.5, 2, 1, 0.25];
    const names = BIO;
    const lambda = 0.05;
    const weighted = chainRules(names, { labelWeights: c });
    const { xs, ys, F, K } = tinySparse(11, names, {}, 6, 3);
    // The weighted loss computed here, independently of the models.
    const loss = (y: Int32Array, z: Int32Array) => {
      let m = 0;
      for (let t = 0; t < y.length; t++) if (y[t] !== z[t]) m += c[y[t]!]!;
      return m / y.length;
    };
    const primal = (model: SparseChainModel, w: Float64Array) => {
      let h = 0;
      for (let i = 0; i < xs.length; i++) {
        h += Math.max(...allLabellings(ys[i]!.length, K).map((y) => loss(ys[i]!, y) - dotSparse(w, model.psi(xs[i]!, ys[i]!, y))));
      }
      return 0.5 * lambda * w.reduce((a, v) => a + v * v, 0) + h / xs.length;
    };
    const model = new SparseChainModel({ numFeatures: F, numLabels: K, rules: weighted });
    const options = { lambda, gapThreshold: 1e-9, maxPasses: 3000, gapCheck: 5, batch: 1 };
    const r = train(modelProblem(model, xs, ys), { ...options, solver: 'bcfw', step: 'pairwise' } as never);
    expect(r.gap!).toBeLessThan(1e-8);
    expect(r.primal!).toBeCloseTo(primal(model, r.w), 9);
    // A second algorithm (batch Frank-Wolfe) reaches the same optimum within the certificates.
    const fw = train(modelProblem(model, xs, ys), { solver: 'fw', lambda, gapThreshold: 1e-6, maxPasses: 20000 } as never);
    expect(Math.abs(fw.primal! - r.primal!)).toBeLessThanOrEqual(fw.gap! + r.gap! + 1e-12);
    // The unweighted optimum is not optimal for the weighted objective: the weights matter.
    const plain = new SparseChainModel({ numFeatures: F, numLabels: K });
    const u = train(modelProblem(plain, xs, ys), { ...options, solver: 'bcfw', step: 'pairwise' } as never);
    expect(primal(model, u.w) - r.primal!).toBeGreaterThan(1e-4);
    // The dense chain (OCR's model) takes the same weights: its oracle is the weighted one.
    const dense = new ChainModel({ numFeatures: 2, numLabels: K, rules: weighted, backend: 'native' });
    const rng = new Rng(3);
    const x = Float64Array.from({ length: 3 * 2 }, () => rng.next());
    const y = Int32Array.of(0, 2, 4);
    const w = Float64Array.from({ length: dense.dim }, () => rng.next() - 0.5);
    const aug = (z: Int32Array) => loss(y, z) + dense.score(w, x, z);
    expect(aug(dense.lossAugmentedDecode(w, x, y))).toBeCloseTo(Math.max(...allLabellings(3, K).map(aug)), 12);
  });
});

describe('seq: and conll-columns: readers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-seq-'));
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it("parses CRFsuite's format: weights, escapes, blank and whitespace-only separators", () => {
    const s = parseAttributeFile('B-X\tw=a\tp\\:q:0.5\tback\\\\slash\n\t\nO\tw=b\t\n\nO\tw=c\n', 'f');
    expect(s.length).toBe(3);
    expect(s[0]!.attributes[0]).toEqual(['w=a', 'p:q', 'back\\slash']);
    expect(Array.from(s[0]!.weights[0]!)).toEqual([1, 0.5, 1]);
    expect(s[1]!.attributes[0]).toEqual(['w=b']);
    expect(s[1]!.weights[0]).toBeNull();
    expect(s[2]!.line).toBe(5);
    // The writer escapes what the reader unescapes.
    expect(formatAttributeLine('L', ['a:b', 'c\\d', 'e'], [1, 2, 1])).toBe('L\ta\\:b\tc\\\\d:2\te');
    expect(parseAttributeFile(`${formatAttributeLine('L', ['a:b', 'c\\d'], [1, 2])}\n`, 'g')[0]!.attributes[0]).toEqual(['a:b', 'c\\d']);
  });

  it('malformed lines fail with the file and the line', () => {
    const fails = (text: string, line: number, what: RegExp) => {
      try {
        parseAttributeFile(text, 'bad.crf');
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(FormatError);
        expect((e as Error).message).toMatch(new RegExp(`^bad\\.crf:${line}: `));
        expect((e as Error).message).toMatch(what);
      }
    };
    fails('O\ta\nO b c\n', 2, /no tab/);
    fails('O\ta\n\n\tb\n', 3, /empty label/);
    fails('O\ta:x\n', 1, /bad weight "x"/);
    fails('O\ta:\n', 1, /bad weight/);
    fails('O\t:1\n', 1, /empty attribute name/);
    fails('\n\n', 2, /no items/);
    expect(() => parseColumnFile('a b O\nc O\n', 'bad.conll')).toThrow(/^bad\.conll:2: expected 3 columns/);
    expect(() => parseTemplates('w[0]\nw[x]\n', 'tpl')).toThrow(/^tpl:2: bad template part/);
  });

  it('templates: windows, joins, shapes, affixes, columns; nothing outside the sentence', () => {
    const rows = [['McDonald', 'NNP', 'B-NP'], ['sells', 'VBZ', 'O']];
    const t = parseTemplates('bias\nw[-1]|w[0]\nshape[0]\nsuf3[0]|c2[1]\npre4[0] # comment\n', 'tpl');
    expect(templateAttributes(t, rows)).toEqual([
      ['bias', 'shape[0]=AaAa', 'suf3[0]|c2[1]=ald VBZ', 'pre4[0]=McDo'],
      ['bias', 'w[-1]|w[0]=McDonald sells', 'shape[0]=a', 'pre4[0]=sell'],
    ]);
    expect(wordShape("O'Neil-2024")).toBe("A'Aa-0");
  });

  it('the CLI: train, eval and predict on seq: and conll-columns: files; malformed data exits 2 naming file and line', async () => {
    const seq = file('train.crf', 'B-PER\tw=John\tcap\nI-PER\tw=Smith\tcap\nO\tw=runs\n\nO\tw=in\nB-LOC\tw=Paris\tcap\n\nB-PER\tw=Ann\tcap\nO\tw=sings\n');
    const model = join(dir, 'm.gbm');
    const t = await cli('train', `seq:${seq}`, '--constraints', 'bio', '--label-weights', 'balanced', '--lambda', '0.01', '--out', model, '--json', '--quiet');
    expect(t.code, t.stderr).toBe(0);
    const p = await cli('predict', model, `seq:${seq}`, '--quiet');
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toBe('B-PER\nI-PER\nO\n\nO\nB-LOC\n\nB-PER\nO\n\n');
    const e = await cli('eval', model, `seq:${seq}`, '--json', '--quiet');
    expect(e.json).toMatchObject({ accuracy: 1, f1: 1, trainError: 0, trainHamming: 0 });
    expect((e.json!.perLabel as Record<string, unknown>)['B-PER']).toMatchObject({ support: 2, precision: 1, recall: 1 });
    const bad = await cli('train', `seq:${file('bad.crf', 'O\tw=a\nO\tw=b:zz\n')}`, '--quiet');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.crf:2: attribute "w=b" has a bad weight "zz"/);
    const broken = await cli('train', `seq:${file('broken.crf', 'O\tw=a\nI-PER\tw=b\n')}`, '--constraints', 'bio', '--quiet');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/training example 1, token 2: I-PER may not follow O/);
    const cols = file('train.conll', 'John NNP B-PER\nruns VBZ O\n \nMary NNP B-PER\n');
    const c = await cli('train', `conll-columns:${cols}`, '--lambda', '0.01', '--out', join(dir, 'c.gbm'), '--json', '--quiet');
    expect(c.code, c.stderr).toBe(0);
    expect(c.json!.n).toBe(2);
    const raw = await cli('predict', join(dir, 'c.gbm'), cols, '--quiet');
    expect(raw.stdout).toBe('B-PER\nO\n\nB-PER\n\n');
    // --lambda auto along the path and on the grid, scored on a --dev set: the chosen lambda is the curve's best.
    for (const search of ['path', 'grid']) {
      const auto = await cli('train', `seq:${seq}`, '--lambda', 'auto', '--lambda-search', search, '--dev', `seq:${seq}`, '--min-lambda', '1e-3', '--json', '--quiet');
      expect(auto.code, auto.stderr).toBe(0);
      const { curve, metric } = auto.json!.lambdaAuto as { curve: { lambda: number; score: number; gap: number }[]; metric: string };
      expect(metric).toBe('f1');
      expect(curve.length).toBeGreaterThan(2);
      const best = Math.max(...curve.map((p) => p.score));
      expect(auto.json!.lambda).toBe(curve.find((p) => p.score === best)!.lambda);
      expect(curve.every((p) => p.gap <= 0.01 + 1e-12)).toBe(true);
    }
    const noDev = await cli('train', `seq:${seq}`, '--lambda', 'auto', '--quiet');
    expect(noDev.code).toBe(2);
    expect(noDev.stderr).toMatch(/--lambda auto needs held-out data/);
  });
});

describe('sequence metrics', () => {
  it('accuracy, per-label and micro/macro scores, BIO and BIOES spans by the conlleval rules', () => {
    const s = sequenceScores([['B-A', 'I-A', 'O', 'B-B']], [['B-A', 'O', 'O', 'B-B']]);
    expect(s.accuracy).toBe(3 / 4);
    expect(s.perLabel['I-A']).toMatchObject({ support: 1, predicted: 0, recall: 0, f1: 0 });
    expect(s.perLabel.O).toMatchObject({ support: 1, predicted: 2, precision: 0.5 });
    // micro over the labels other than O: 2 correct of 2 predicted, of 3 gold
    expect(s.microPrecision).toBe(1);
    expect(s.microRecall).toBe(2 / 3);
    expect(s.macroF1).toBeCloseTo((1 + 0 + 2 / 3 + 1) / 4, 12);
    expect(s.scheme).toBe('bio');
    expect(s.spans).toMatchObject({ gold: 2, predicted: 2, correct: 1 });
    const e = sequenceScores([['B-A', 'E-A', 'S-B']], [['B-A', 'E-A', 'S-B']]);
    expect(e.scheme).toBe('bioes');
    expect(e.spans).toMatchObject({ gold: 2, correct: 2 });
    expect(sequenceScores([['NN', 'VB']], [['NN', 'NN']]).spans).toBeUndefined();
  });
});

describe('seq: on CoNLL-2000 converted to CRFsuite format', needsData('conll2000', 'train.txt'), () => {
  it("the dictionary's CoNLL fast path encodes exactly as encode(conllAttributes(...)) (seen and unseen attributes)", async () => {
    const { FeatureDictionary } = await import('../src/data/conll-features.js');
    const train = loadConll(dataPath('conll2000', 'train.txt')).slice(0, 1500);
    const dictionary = FeatureDictionary.build(train.map((s) => conllAttributes(s.words, s.pos)), { minFrequency: 2 });
    for (const s of loadConll(dataPath('conll2000', 'test.txt')).slice(0, 400)) {
      const slow = dictionary.encode(conllAttributes(s.words, s.pos));
      const fast = dictionary.encodeConll(s.words, s.pos);
      expect(Array.from(fast.offsets)).toEqual(Array.from(slow.offsets));
      expect(Array.from(fast.ids)).toEqual(Array.from(slow.ids));
    }
  });

  it('gives the same certified gap trace as conll:, bit for bit (same attributes, same labels)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-seq-conll-'));
    const sentences = loadConll(dataPath('conll2000', 'train.txt')).slice(0, 200);
    const crf = join(dir, 'train.crf');
    writeFileSync(crf, sentences.map((s) => `${conllAttributes(s.words, s.pos).map((a, t) => formatAttributeLine(s.chunks![t]!, a)).join('\n')}\n\n`).join(''));
    const conllFile = join(dir, 'train.txt');
    writeFileSync(conllFile, sentences.map((s) => `${s.words.map((w, t) => `${w} ${s.pos[t]} ${s.chunks![t]}`).join('\n')}\n\n`).join(''));
    const run = async (data: string, ...extra: string[]) => {
      const trace = join(dir, `${data.slice(0, 3)}.jsonl`);
      // One threshold for both (the tasks' defaults differ: conll: 0.1, seq: 0.01).
      const r = await cli('train', data, ...extra, '--max-passes', '10', '--gap-check', '5', '--gap-threshold', '0.01', '--trace', trace, '--json', '--quiet');
      expect(r.code, r.stderr).toBe(0);
      return { r: r.json!, trace: (await import('node:fs')).readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((l) => { const { seconds: _s, data: _d, ...rest } = JSON.parse(l); return rest; }) };
    };
    const a = await run(`conll:${conllFile}`);
    // conll: completes every chunk type with its B- and I- tags; --labels gives seq: the same label set.
    const labels = new Set(sentences.flatMap((s) => s.chunks!));
    for (const l of [...labels]) if (l !== 'O') labels.add(`B-${l.slice(2)}`).add(`I-${l.slice(2)}`);
    const b = await run(`seq:${crf}`, '--min-frequency', '3', '--labels', [...labels].join(','));
    expect(b.r.dim).toBe(a.r.dim);
    expect(b.trace).toEqual(a.trace);
    expect(b.r.primal).toBe(a.r.primal);
    expect(b.r.gap).toBe(a.r.gap);
  }, 120_000);
});

describe('docs/models/sequences.md', () => {
  it('every command of the page runs as written and does what the page says', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-seq-docs-'));
    const commands = documentedCommands('docs/models/sequences.md');
    expect(commands.length).toBe(8);
    const outputs: string[] = [];
    for (const { line, argv } of commands) {
      const stdin = /< (\S+)/.exec(line)?.[1];
      const args = runnable(argv, dir);
      const r = stdin === undefined ? await cli(...args, '--quiet') : await cliWithInput(readFileSync(stdin, 'utf8'), ...args, '--quiet');
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      outputs.push(r.stdout);
    }
    const labels = 'B-PER\nI-PER\nO\nO\nB-LOC\n\nO\nB-LOC\n\nB-PER\nI-PER\nO\n\n';
    expect(outputs[1]).toBe(labels);
    expect(outputs[2]!.match(/^@score\t/gm)!.length).toBe(6);
    expect(outputs[2]!.split('\n\n')[0]).toMatch(/^@score\t[-\d.e]+\nB-PER\nI-PER\nO\nO\nB-LOC$/);
    expect(outputs[3]!.split('\n')[0]).toBe('label\tB-LOC\tB-PER\tI-PER\tO');
    expect(outputs[4]).toMatch(/perLabel:[\s\S]*B-PER +100\.00 +100\.00 +100\.00 +2/);
    expect(outputs[4]).toMatch(/span type[\s\S]*PER +100\.00/);
    const jsonl = outputs[6]!.trim().split('\n').map((l) => JSON.parse(l));
    expect(jsonl.map((o) => o.labels.join(' '))).toEqual(['B-PER I-PER O O B-LOC', 'O B-LOC', 'B-PER I-PER O']);
    expect(outputs[7]).toMatch(/lambdaAuto: \{"metric":"f1"/);
    // The README's sequence-labelling commands are commands of the page (run above).
    const readme = documentedCommands('README.md').filter((c) => c.line.includes('docs/examples/'));
    expect(readme.length).toBe(2);
    for (const c of readme) expect(commands.map((d) => d.line.replace(/\s+#.*$/, '').replace(/\s+/g, ' ')), c.line).toContain(c.line.replace(/\s+/g, ' '));
  }, 60_000);
});
