import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/core/errors.js';
import { modelProblem } from '../src/engine/problem.js';
import { Rng } from '../src/core/rng.js';
import { dotSparse, toDense } from '../src/core/vector.js';
import { ChunkTagSet, conllTokenCount, formatConll, loadConll, parseConll, encodeConll } from '../src/data/conll.js';
import { loadConllTask } from '../src/tasks/conll.js';
import { parseSparseChainSpec } from '../src/tasks/model-kinds.js';
import { dataPath } from '../src/data/paths.js';
import { chunkScores, chunkScoresFromIds, extractChunks, formatChunkReport } from '../src/eval/chunks.js';
import { writeModelFile } from '../src/io/model-file.js';
import { ChainModel } from '../src/models/chain.js';
import { CONLL_TEMPLATES, FeatureDictionary, conllAttributes } from '../src/data/conll-features.js';
import { SparseChainModel, sparseChainDim, type SparseSequence } from '../src/models/sparse-chain.js';
import { conllMetrics } from '../src/tasks/conll.js';
import { loadModel } from '../src/tasks/model.js';
import { cli, cliWithInput } from './helpers/capture.js';
import { documentedCommand, runnable } from './helpers/docs.js';
import { train } from '../src/solvers/index.js';
import { allLabellings, randomW } from './helpers/tiny.js';
import { expectFormatError } from './helpers/errors.js';
import { needsData } from './helpers/skips.js';

const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-conll-'));


// ---------------------------------------------------------------------------------------------------
describe('CoNLL reader and writer', () => {
  const text = 'Confidence NN B-NP\nin IN B-PP\nthe DT B-NP\npound NN I-NP\n\n\nHe PRP B-NP\r\nreckons VBZ B-VP\n';

  it('reads sentences separated by blank lines, with first-token line numbers', () => {
    const s = parseConll(text, 'x.txt');
    expect(s).toHaveLength(2);
    expect(s[0]).toEqual({ words: ['Confidence', 'in', 'the', 'pound'], pos: ['NN', 'IN', 'DT', 'NN'], chunks: ['B-NP', 'B-PP', 'B-NP', 'I-NP'], line: 1 });
    expect(s[1]).toEqual({ words: ['He', 'reckons'], pos: ['PRP', 'VBZ'], chunks: ['B-NP', 'B-VP'], line: 7 });
    expect(conllTokenCount(s)).toBe(6);
    // No trailing newline, tabs and runs of spaces as separators.
    expect(parseConll('a\tDT  B-NP\nb NN I-NP', 'y')).toEqual([{ words: ['a', 'b'], pos: ['DT', 'NN'], chunks: ['B-NP', 'I-NP'], line: 1 }]);
  });

  it('rejects malformed lines with file and line number', () => {
    let e = expectFormatError(() => parseConll('a DT B-NP\nb NN\n', 'bad.txt'));
    expect(e.line).toBe(2);
    expect(e.file).toBe('bad.txt');
    expect(e.message).toMatch(/^bad\.txt:2: expected 3 whitespace-separated columns .* found 2/);
    e = expectFormatError(() => parseConll('a DT B-NP\n\nb NN I-NP extra\n', 'bad.txt'));
    expect(e.line).toBe(3);
    e = expectFormatError(() => parseConll('a DT B-NP\nb NN X-NP\n', 'bad.txt'));
    expect(e.line).toBe(2);
    expect(e.message).toMatch(/chunk tag "X-NP" must be O, B-TYPE or I-TYPE/);
    e = expectFormatError(() => parseConll('a DT B-NP\nb NN B-\n', 'bad.txt'));
    expect(e.line).toBe(2);
    e = expectFormatError(() => parseConll('\n \n', 'empty.txt'));
    expect(e.message).toMatch(/empty file/);
    // 'auto': 2 or 3 columns, the same on every line.
    expect(parseConll('a DT\nb NN\n', 'in', { columns: 'auto' })[0]!.chunks).toBeNull();
    e = expectFormatError(() => parseConll('a DT\nb NN\n\nc NN B-NP\n', 'in', { columns: 'auto' }));
    expect(e.line).toBe(4);
    e = expectFormatError(() => parseConll('a\n', 'in', { columns: 'auto' }));
    expect(e.line).toBe(1);
  });

  it('loadConll reports unreadable files as InputError', () => {
    expect(() => loadConll(join(dir, 'missing.txt'))).toThrow(InputError);
    const p = join(dir, 'bad.txt');
    writeFileSync(p, 'a DT B-NP\n\nb NN I-NP\nc\n');
    const e = expectFormatError(() => loadConll(p));
    expect(e.message).toBe(`${p}:4: expected 3 whitespace-separated columns (word, POS, chunk tag), found 1`);
  });

  it('writes the predicted column after the input columns', () => {
    const s = parseConll(text, 'x');
    const pred = [['B-NP', 'B-PP', 'B-NP', 'B-NP'], ['B-NP', 'B-VP']];
    const out = formatConll(s, pred);
    expect(out.split('\n').slice(0, 6)).toEqual(['Confidence NN B-NP B-NP', 'in IN B-PP B-PP', 'the DT B-NP B-NP', 'pound NN I-NP B-NP', '', 'He PRP B-NP B-NP']);
    expect(formatConll(s, pred, { keepGold: false }).split('\n')[3]).toBe('pound NN B-NP');
    const unlabelled = parseConll('a DT\nb NN\n', 'x', { columns: 'auto' });
    expect(formatConll(unlabelled, [['B-NP', 'I-NP']])).toBe('a DT B-NP\nb NN I-NP\n\n');
    expect(() => formatConll(s, [pred[0]!])).toThrow(InputError);
  });

  it('chunk tag set: sorted, completed with B-/I- of every type, unknown types rejected with the line', () => {
    const s = parseConll('a DT B-NP\nb NN I-NP\nc , O\nd ( B-LST\n', 'x');
    const tags = ChunkTagSet.fromSentences(s);
    expect(tags.names).toEqual(['B-LST', 'B-NP', 'I-LST', 'I-NP', 'O']);
    expect(ChunkTagSet.fromSentences(s, { complete: false }).names).toEqual(['B-LST', 'B-NP', 'I-NP', 'O']);
    expect(Array.from(tags.encode(s[0]!))).toEqual([1, 3, 4, 0]);
    expect(tags.decode([2, 4])).toEqual(['I-LST', 'O']);
    const test = parseConll('x NN B-NP\ny VB B-VP\n', 'test.txt');
    const e = expectFormatError(() => tags.encode(test[0]!, 'test.txt'));
    expect(e.line).toBe(2);
    expect(e.message).toMatch(/"B-VP" is not one of the model's 5 tags/);
    expect(Array.from(tags.encode(test[0]!, 'test.txt', 'mark'))).toEqual([1, -1]);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('CoNLL attributes and dictionary', () => {
  const words = ['He', 'reckons', 'the', 'current', 'account'];
  const pos = ['PRP', 'VBZ', 'DT', 'JJ', 'NN'];

  it('has the 20 documented templates', () => {
    expect(CONLL_TEMPLATES.map((t) => t.name)).toEqual([
      'bias', 'w[-2]', 'w[-1]', 'w[0]', 'w[1]', 'w[2]', 'w[-1]|w[0]', 'w[0]|w[1]',
      'pos[-2]', 'pos[-1]', 'pos[0]', 'pos[1]', 'pos[2]',
      'pos[-2]|pos[-1]', 'pos[-1]|pos[0]', 'pos[0]|pos[1]', 'pos[1]|pos[2]',
      'pos[-2]|pos[-1]|pos[0]', 'pos[-1]|pos[0]|pos[1]', 'pos[0]|pos[1]|pos[2]',
    ]);
  });

  it('gives the expected attribute lists on a hand-written sentence', () => {
    const a = conllAttributes(words, pos);
    expect(a).toHaveLength(5);
    expect(a[0]).toEqual([
      'bias', 'w[0]=He', 'w[1]=reckons', 'w[2]=the', 'w[0]|w[1]=He reckons',
      'pos[0]=PRP', 'pos[1]=VBZ', 'pos[2]=DT', 'pos[0]|pos[1]=PRP VBZ', 'pos[1]|pos[2]=VBZ DT', 'pos[0]|pos[1]|pos[2]=PRP VBZ DT',
    ]);
    expect(a[2]).toEqual([
      'bias', 'w[-2]=He', 'w[-1]=reckons', 'w[0]=the', 'w[1]=current', 'w[2]=account', 'w[-1]|w[0]=reckons the', 'w[0]|w[1]=the current',
      'pos[-2]=PRP', 'pos[-1]=VBZ', 'pos[0]=DT', 'pos[1]=JJ', 'pos[2]=NN',
      'pos[-2]|pos[-1]=PRP VBZ', 'pos[-1]|pos[0]=VBZ DT', 'pos[0]|pos[1]=DT JJ', 'pos[1]|pos[2]=JJ NN',
      'pos[-2]|pos[-1]|pos[0]=PRP VBZ DT', 'pos[-1]|pos[0]|pos[1]=VBZ DT JJ', 'pos[0]|pos[1]|pos[2]=DT JJ NN',
    ]);
    expect(a[4]).toEqual([
      'bias', 'w[-2]=the', 'w[-1]=current', 'w[0]=account', 'w[-1]|w[0]=current account',
      'pos[-2]=DT', 'pos[-1]=JJ', 'pos[0]=NN', 'pos[-2]|pos[-1]=DT JJ', 'pos[-1]|pos[0]=JJ NN', 'pos[-2]|pos[-1]|pos[0]=DT JJ NN',
    ]);
    // A one-word sentence: only the templates at offset 0.
    expect(conllAttributes(['Yes'], ['UH'])).toEqual([['bias', 'w[0]=Yes', 'pos[0]=UH']]);
    expect(() => conllAttributes(['a'], [])).toThrow(InputError);
  });

  it('builds ids in order of first occurrence, honours minFrequency and ignores unseen attributes', () => {
    const s1 = conllAttributes(['the', 'dog'], ['DT', 'NN']);
    const s2 = conllAttributes(['the', 'cat'], ['DT', 'NN']);
    const all = FeatureDictionary.build([s1, s2], { minFrequency: 1 });
    expect(all.attribute(0)).toBe('bias');
    expect(all.id('w[0]=the')).toBe(1);
    expect(all.size).toBe(new Set([...s1.flat(), ...s2.flat()]).size);
    const two = FeatureDictionary.build([s1, s2], { minFrequency: 2 });
    // Seen twice: bias (4 tokens), w[0]=the, w[-1]=the, pos[...] of both sentences, but no word of dog/cat.
    expect(two.id('w[0]=dog')).toBe(-1);
    expect(two.id('w[0]=the')).toBeGreaterThanOrEqual(0);
    expect(two.id('pos[-1]|pos[0]=DT NN')).toBeGreaterThanOrEqual(0);
    const x = two.encode(conllAttributes(['the', 'cow'], ['DT', 'NN']));
    expect(x.offsets).toEqual(Int32Array.from([0, x.offsets[1]!, x.ids.length]));
    for (let t = 0; t < 2; t++) {
      const ids = Array.from(x.ids.subarray(x.offsets[t]!, x.offsets[t + 1]!));
      expect(ids).toEqual([...ids].sort((p, q) => p - q));
      const names = ids.map((k) => two.attribute(k));
      expect(names.every((n) => !n.includes('cow'))).toBe(true);
      expect(names).toContain('bias');
    }
    // Token 0 keeps exactly the attributes of conllAttributes that are in the dictionary.
    const expected = conllAttributes(['the', 'cow'], ['DT', 'NN'])[0]!.filter((a) => two.id(a) >= 0).map((a) => two.id(a)).sort((p, q) => p - q);
    expect(Array.from(x.ids.subarray(0, x.offsets[1]!))).toEqual(expected);
    expect(() => FeatureDictionary.build([s1], { minFrequency: 0 })).toThrow(InputError);
  });

  it('round-trips through JSON and refuses other template sets', () => {
    const d = FeatureDictionary.build([conllAttributes(words, pos)], { minFrequency: 1 });
    const back = FeatureDictionary.fromJSON(JSON.parse(JSON.stringify(d.toJSON())));
    expect(back.size).toBe(d.size);
    expect(back.minFrequency).toBe(1);
    for (let k = 0; k < d.size; k++) expect(back.id(d.attribute(k))).toBe(k);
    expect(() => FeatureDictionary.fromJSON({ ...d.toJSON(), templates: 'other' })).toThrow(/templates/);
    expect(() => FeatureDictionary.fromJSON({ ...d.toJSON(), attributes: ['a', 'a'] })).toThrow(/twice/);
    expect(() => FeatureDictionary.fromJSON(null)).toThrow(InputError);
  });
});

// ---------------------------------------------------------------------------------------------------
/** conlleval's main loop, transcribed from the Perl script as a line stream with '' between sentences. */
function conllevalReference(sentences: { gold: string[]; pred: string[] }[]) {
  const split = (tag: string): [string, string] => {
    const f = tag.split('-');
    return [f[0]!, f[1] ?? ''];
  };
  const end = (p: string, t: string, pt: string, tt: string) =>
    (p === 'B' && t === 'B') || (p === 'B' && t === 'O') || (p === 'I' && t === 'B') || (p === 'I' && t === 'O') || (p !== 'O' && p !== '.' && pt !== tt);
  const start = (p: string, t: string, pt: string, tt: string) =>
    (p === 'B' && t === 'B') || (p === 'I' && t === 'B') || (p === 'O' && t === 'B') || (p === 'O' && t === 'I') || (t !== 'O' && t !== '.' && pt !== tt);
  const lines: [string, string, boolean][] = [];
  for (const s of sentences) {
    s.gold.forEach((g, t) => lines.push([g, s.pred[t]!, false]));
    lines.push(['O', 'O', true]);
  }
  let correctChunk = 0, foundCorrect = 0, foundGuessed = 0, correctTags = 0, tokens = 0;
  let inCorrect = false;
  let lastCorrect = 'O', lastGuessed = 'O', lastCorrectType = '', lastGuessedType = '';
  for (const [g, p, boundary] of lines) {
    const [correct, correctType] = split(g);
    let [guessed, guessedType] = split(p);
    if (boundary) guessed = 'O';
    if (inCorrect) {
      const ec = end(lastCorrect, correct, lastCorrectType, correctType);
      const eg = end(lastGuessed, guessed, lastGuessedType, guessedType);
      if (ec && eg && lastGuessedType === lastCorrectType) {
        inCorrect = false;
        correctChunk++;
      } else if (ec !== eg || guessedType !== correctType) inCorrect = false;
    }
    const sc = start(lastCorrect, correct, lastCorrectType, correctType);
    const sg = start(lastGuessed, guessed, lastGuessedType, guessedType);
    if (sc && sg && guessedType === correctType) inCorrect = true;
    if (sc) foundCorrect++;
    if (sg) foundGuessed++;
    if (!boundary) {
      if (correct === guessed && guessedType === correctType) correctTags++;
      tokens++;
    }
    [lastGuessed, lastCorrect, lastGuessedType, lastCorrectType] = [guessed, correct, guessedType, correctType];
  }
  if (inCorrect) correctChunk++;
  return { correct: correctChunk, gold: foundCorrect, predicted: foundGuessed, correctTags, tokens };
}

describe('chunk F1 (conlleval rules)', () => {
  it('hand example: one of two chunks right', () => {
    const s = chunkScores([['B-NP', 'I-NP', 'O', 'B-VP']], [['B-NP', 'I-NP', 'O', 'B-NP']]);
    expect([s.gold, s.predicted, s.correct]).toEqual([2, 2, 1]);
    expect(s.precision).toBe(0.5);
    expect(s.recall).toBe(0.5);
    expect(s.f1).toBe(0.5);
    expect(s.tokenAccuracy).toBe(0.75);
    expect(s.perType.NP).toMatchObject({ gold: 1, predicted: 2, correct: 1, precision: 0.5, recall: 1 });
    expect(s.perType.NP!.f1).toBeCloseTo(2 / 3, 15);
    expect(s.perType.VP).toMatchObject({ gold: 1, predicted: 0, correct: 0, precision: 0, recall: 0, f1: 0 });
  });

  it('I- without B- starts a chunk (after O, at the sentence start, after another type)', () => {
    expect(extractChunks(['I-NP', 'I-NP', 'O', 'I-VP', 'B-NP', 'I-PP'])).toEqual([
      { type: 'NP', start: 0, end: 2 },
      { type: 'VP', start: 3, end: 4 },
      { type: 'NP', start: 4, end: 5 },
      { type: 'PP', start: 5, end: 6 },
    ]);
    // A predicted I-NP I-NP matches the gold B-NP I-NP chunk; only the first tag is wrong.
    const s = chunkScores([['B-NP', 'I-NP', 'O']], [['I-NP', 'I-NP', 'O']]);
    expect([s.gold, s.predicted, s.correct, s.f1]).toEqual([1, 1, 1, 1]);
    expect(s.tokenAccuracy).toBeCloseTo(2 / 3, 15);
  });

  it('type mismatches: same span with another type, and a type change inside a chunk', () => {
    let s = chunkScores([['B-NP', 'I-NP']], [['B-VP', 'I-VP']]);
    expect([s.gold, s.predicted, s.correct, s.f1, s.tokenAccuracy]).toEqual([1, 1, 0, 0, 0]);
    // B-NP I-VP: two chunks, NP (0) and VP (1); the gold NP (0-1) matches neither.
    s = chunkScores([['B-NP', 'I-NP']], [['B-NP', 'I-VP']]);
    expect([s.gold, s.predicted, s.correct]).toEqual([1, 2, 0]);
    expect(s.tokenAccuracy).toBe(0.5);
  });

  it('chunks do not cross sentence ends', () => {
    // Sentence 1 ends inside an NP and sentence 2 starts with I-NP: two gold chunks, not one.
    const gold = [['O', 'B-NP', 'I-NP'], ['I-NP', 'O']];
    const pred = [['O', 'B-NP', 'I-NP'], ['B-NP', 'O']];
    const s = chunkScores(gold, pred);
    expect([s.gold, s.predicted, s.correct, s.f1, s.sentences]).toEqual([2, 2, 2, 1, 2]);
    // Evaluated as one sentence the tags would make one chunk (0-based 1..3) instead.
    expect(extractChunks(gold.flat())).toEqual([{ type: 'NP', start: 1, end: 4 }]);
  });

  it('degenerate cases: nothing predicted, nothing to find', () => {
    let s = chunkScores([['B-NP', 'O']], [['O', 'O']]);
    expect([s.precision, s.recall, s.f1]).toEqual([0, 0, 0]);
    s = chunkScores([['O']], [['O']]);
    expect([s.gold, s.predicted, s.f1, s.tokenAccuracy]).toEqual([0, 0, 0, 1]);
    expect(() => chunkScores([['O']], [['O', 'O']])).toThrow(InputError);
  });

  it('agrees with a transcription of conlleval on random tag sequences', () => {
    const rng = new Rng(11);
    const TAGS = ['O', 'B-NP', 'I-NP', 'B-VP', 'I-VP', 'B-PP', 'I-PP'];
    for (let trial = 0; trial < 200; trial++) {
      const sentences: { gold: string[]; pred: string[] }[] = [];
      for (let i = 0; i < 1 + rng.int(4); i++) {
        const T = 1 + rng.int(8);
        const gold = Array.from({ length: T }, () => TAGS[rng.int(TAGS.length)]!);
        // Predictions close to the gold tags so that some chunks match.
        const pred = gold.map((g) => (rng.next() < 0.3 ? TAGS[rng.int(TAGS.length)]! : g));
        sentences.push({ gold, pred });
      }
      const ref = conllevalReference(sentences);
      const s = chunkScores(sentences.map((x) => x.gold), sentences.map((x) => x.pred));
      expect({ correct: s.correct, gold: s.gold, predicted: s.predicted, correctTags: s.correctTags, tokens: s.tokens }).toEqual(ref);
    }
  });

  it('scores label ids through the tag names and prints a conlleval-style report', () => {
    const names = ['B-NP', 'I-NP', 'O'];
    const s = chunkScoresFromIds([Int32Array.from([0, 1, 2])], [Int32Array.from([0, 1, 2])], names);
    expect(s.f1).toBe(1);
    expect(formatChunkReport(s)).toMatch(/processed 3 tokens with 1 phrases; found: 1 phrases; correct: 1\.\naccuracy: 100\.00%; precision: 100\.00%; recall: 100\.00%; FB1: 100\.00\n\s+NP: precision: 100\.00%/);
    expect(() => chunkScoresFromIds([Int32Array.from([5])], [Int32Array.from([0])], names)).toThrow(InputError);
  });
});

// ---------------------------------------------------------------------------------------------------
/** A random sparse chain problem and the equivalent dense ChainModel problem (x_t as a dense F-vector). */
function tinySparse(seed: number, opts: { F?: number; K?: number; maxT?: number; n?: number; valued?: boolean } = {}) {
  const rng = new Rng(seed);
  const F = opts.F ?? 6;
  const K = opts.K ?? 3;
  const n = opts.n ?? 5;
  const xs: SparseSequence[] = [];
  const dense: Float64Array[] = [];
  const ys: Int32Array[] = [];
  for (let i = 0; i < n; i++) {
    const T = 1 + rng.int(opts.maxT ?? 4);
    const offsets = new Int32Array(T + 1);
    const ids: number[] = [];
    const vals: number[] = [];
    const x = new Float64Array(T * F);
    for (let t = 0; t < T; t++) {
      const m = 1 + rng.int(4);
      for (let j = 0; j < m; j++) {
        const f = rng.int(F); // repeats allowed: they count twice
        const v = opts.valued ? rng.next() * 2 - 1 : 1;
        ids.push(f);
        vals.push(v);
        x[t * F + f]! += v;
      }
      offsets[t + 1] = ids.length;
    }
    xs.push(opts.valued ? { offsets, ids: Int32Array.from(ids), values: Float64Array.from(vals) } : { offsets, ids: Int32Array.from(ids) });
    dense.push(x);
    ys.push(Int32Array.from({ length: T }, () => rng.int(K)));
  }
  return { F, K, xs, dense, ys };
}

/** Dense-layout index of each sparse-layout coordinate: unary f*K+k -> k*F+f, the rest unchanged. */
function toDenseLayout(F: number, K: number): Int32Array {
  const d = sparseChainDim(F, K);
  const map = new Int32Array(d);
  for (let j = 0; j < d; j++) map[j] = j < F * K ? (j % K) * F + Math.floor(j / K) : j;
  return map;
}

function permute(w: Float64Array, map: Int32Array): Float64Array {
  const out = new Float64Array(w.length);
  for (let j = 0; j < w.length; j++) out[map[j]!] = w[j]!;
  return out;
}

describe.each(['native', 'js'] as const)('sparse chain model (%s Viterbi)', (backend) => {
  it('matches the dense chain model: scores, decoding, psi, loss-augmented scores', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const p = tinySparse(seed, { valued: seed % 2 === 0, K: 2 + (seed % 3) });
      const sparse = new SparseChainModel({ numFeatures: p.F, numLabels: p.K, backend });
      const denseModel = new ChainModel({ numFeatures: p.F, numLabels: p.K, backend });
      expect(sparse.dim).toBe(denseModel.dim);
      const map = toDenseLayout(p.F, p.K);
      const w = randomW(sparse.dim, 100 + seed, 1);
      const wd = permute(w, map);
      p.xs.forEach((x, i) => {
        const yt = p.ys[i]!;
        expect(sparse.decode(w, x)).toEqual(denseModel.decode(wd, p.dense[i]!));
        expect(sparse.lossAugmentedDecode(w, x, yt)).toEqual(denseModel.lossAugmentedDecode(wd, p.dense[i]!, yt));
        const labels = allLabellings(yt.length, p.K).slice(0, 20);
        const a = new Float64Array(labels.length);
        const b = new Float64Array(labels.length);
        sparse.labelScores(w, x, yt, labels, a);
        denseModel.labelScores(wd, p.dense[i]!, yt, labels, b);
        labels.forEach((y, k) => {
          expect(sparse.score(w, x, y)).toBeCloseTo(denseModel.score(wd, p.dense[i]!, y), 10);
          expect(a[k]).toBeCloseTo(b[k]!, 10);
          const ps = toDense(sparse.psi(x, yt, y), sparse.dim);
          const pd = toDense(denseModel.psi(p.dense[i]!, yt, y), denseModel.dim);
          const back = permute(ps, map);
          for (let j = 0; j < back.length; j++) expect(back[j]).toBeCloseTo(pd[j]!, 12);
          // labelScores is the oracle's objective L - <w, psi>.
          expect(a[k]).toBeCloseTo(sparse.loss(yt, y) - dotSparse(w, sparse.psi(x, yt, y)), 10);
        });
      });
    }
  });

  it('the oracle reaches the brute-force maximum of L(y_i, y) + <w, phi(x, y)>', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const p = tinySparse(500 + seed, { K: 2 + (seed % 3), maxT: 5 });
      const model = new SparseChainModel({ numFeatures: p.F, numLabels: p.K, backend });
      const w = randomW(model.dim, 900 + seed, 0.3);
      p.xs.forEach((x, i) => {
        const yt = p.ys[i]!;
        const value = (z: Int32Array) => model.loss(yt, z) + model.score(w, x, z);
        let best = -Infinity;
        let bestPlain = -Infinity;
        for (const z of allLabellings(yt.length, p.K)) {
          best = Math.max(best, value(z));
          bestPlain = Math.max(bestPlain, model.score(w, x, z));
        }
        expect(value(model.lossAugmentedDecode(w, x, yt))).toBeCloseTo(best, 10);
        expect(model.score(w, x, model.decode(w, x))).toBeCloseTo(bestPlain, 10);
      });
    }
  });

  it('at w = 0 the oracle gets every position wrong; psi of the truth is empty', () => {
    const p = tinySparse(3, { K: 4, maxT: 6 });
    const model = new SparseChainModel({ numFeatures: p.F, numLabels: p.K, backend });
    const w = new Float64Array(model.dim);
    p.xs.forEach((x, i) => {
      expect(model.loss(p.ys[i]!, model.lossAugmentedDecode(w, x, p.ys[i]!))).toBe(1);
      expect(model.psi(x, p.ys[i]!, p.ys[i]!).nnz).toBe(0);
    });
  });
});

describe('sparse chain model', () => {
  it('documents its layout: w[f*K + k], then K first, K last, K*K transitions', () => {
    const m = new SparseChainModel({ numFeatures: 5, numLabels: 3 });
    expect(m.dim).toBe(5 * 3 + 6 + 9);
    expect(m.unaryIndex(4, 2)).toBe(14);
    expect(m.offsets).toEqual({ first: 15, last: 18, transitions: 21 });
    const x: SparseSequence = { offsets: Int32Array.from([0, 2, 3]), ids: Int32Array.from([1, 4, 4]) };
    const w = new Float64Array(m.dim);
    w[m.unaryIndex(1, 0)] = 1;
    w[m.unaryIndex(4, 0)] = 10;
    w[m.unaryIndex(4, 2)] = 100;
    w[m.offsets.first + 0] = 1000;
    w[m.offsets.last + 2] = 10000;
    w[m.offsets.transitions + 0 + 3 * 2] = 100000; // 0 -> 2
    const theta = new Float64Array(6);
    m.nodeScores(w, x, theta);
    expect(Array.from(theta)).toEqual([1011, 0, 100, 10, 0, 10100]);
    expect(m.score(w, x, Int32Array.from([0, 2]))).toBe(111111);
    expect(Array.from(m.decode(w, x))).toEqual([0, 2]);
  });

  it('validates inputs and labels', () => {
    const m = new SparseChainModel({ numFeatures: 3, numLabels: 2 });
    const x: SparseSequence = { offsets: Int32Array.from([0, 1, 2]), ids: Int32Array.from([0, 2]) };
    m.validate(x, Int32Array.from([0, 1]), 'ok');
    expect(() => m.validate({ offsets: Int32Array.from([0, 1, 2]), ids: Int32Array.from([0, 3]) }, Int32Array.from([0, 1]), 'e1')).toThrow(/feature id 3/);
    expect(() => m.validate({ offsets: Int32Array.from([0, 2, 1]), ids: Int32Array.from([0, 1]) }, Int32Array.from([0, 1]), 'e2')).toThrow(InputError);
    expect(() => m.validate({ offsets: Int32Array.from([0]), ids: new Int32Array(0) }, new Int32Array(0), 'e3')).toThrow(/empty/);
    expect(() => m.validate(x, Int32Array.from([0]), 'e4')).toThrow(/length 1/);
    expect(() => m.validate(x, Int32Array.from([0, 2]), 'e5')).toThrow(/outside 0..1/);
    expect(() => m.validate({ ...x, values: Float64Array.from([1, NaN]) }, Int32Array.from([0, 1]), 'e6')).toThrow(/not finite/);
    expect(() => m.validate([] as unknown as SparseSequence, Int32Array.from([0]), 'e7')).toThrow(InputError);
    expect(() => m.decode(new Float64Array(3), x)).toThrow(/length/);
    expect(m.labelFromJSON(m.labelToJSON(Int32Array.from([1, 0])))).toEqual(Int32Array.from([1, 0]));
    expect(() => m.labelFromJSON([2])).toThrow(InputError);
    expect(() => new SparseChainModel({ numFeatures: 0, numLabels: 2 })).toThrow(InputError);
  });

  it('trains to the same iterates and gaps as the dense chain model', () => {
    const p = tinySparse(77, { F: 8, K: 3, n: 12, maxT: 6 });
    const sparse = new SparseChainModel({ numFeatures: p.F, numLabels: p.K });
    const denseModel = new ChainModel({ numFeatures: p.F, numLabels: p.K });
    const options = { lambda: 0.05, maxPasses: 20, gapCheck: 5, gapThreshold: 0, seed: 3 };
    const a = train(modelProblem(sparse, p.xs, p.ys), options);
    const b = train(modelProblem(denseModel, p.dense, p.ys), options);
    const exact = (r: typeof a) => r.trace.filter((e) => e.gapIsExact).map((e) => [e.pass, e.primal, e.dual, e.gap]);
    const ea = exact(a);
    const eb = exact(b);
    expect(ea.length).toBe(eb.length);
    ea.forEach((row, k) => row.forEach((v, j) => expect(v).toBeCloseTo(eb[k]![j] as number, 10)));
    const back = permute(a.w, toDenseLayout(p.F, p.K));
    for (let j = 0; j < back.length; j++) expect(back[j]).toBeCloseTo(b.w[j]!, 10);
  });
});

// ---------------------------------------------------------------------------------------------------
const SMALL_TRAIN = [
  'He PRP B-NP', 'reckons VBZ B-VP', 'the DT B-NP', 'current JJ I-NP', 'account NN I-NP', 'deficit NN I-NP', 'will MD B-VP', 'narrow VB I-VP', '. . O', '',
  'The DT B-NP', 'deficit NN I-NP', 'will MD B-VP', 'widen VB I-VP', 'in IN B-PP', 'September NNP B-NP', '. . O', '',
  'Chancellor NNP B-NP', 'of IN B-PP', 'the DT B-NP', 'Exchequer NNP I-NP', 'reckons VBZ B-VP', '. . O', '',
].join('\n');

describe('conll task, model file and tag command', () => {
  const trainPath = join(dir, 'train.txt');
  writeFileSync(trainPath, SMALL_TRAIN);
  writeFileSync(join(dir, 'test.txt'), 'The DT B-NP\naccount NN I-NP\nwill MD B-VP\nnarrow VB I-VP\n. . O\n');

  it('loads a folder as train + test with the training dictionary and tags', () => {
    const task = loadConllTask(dir, { minFrequency: 1 });
    expect(task.train.xs).toHaveLength(3);
    expect(task.test!.xs).toHaveLength(1);
    expect(task.spec.kind).toBe('sparse-chain');
    expect(task.spec.labelNames).toEqual(['B-NP', 'B-PP', 'B-VP', 'I-NP', 'I-PP', 'I-VP', 'O']);
    expect(task.spec.numFeatures).toBe(task.dictionary.size);
    expect(parseSparseChainSpec(JSON.parse(JSON.stringify(task.spec)))).toEqual(task.spec);
    expect(() => parseSparseChainSpec({ ...task.spec, numFeatures: 3 }, 'm.gbm')).toThrow(/m\.gbm: model header/);
    // Unseen test attributes are dropped: the test sentence keeps only known ones.
    const x = task.test!.xs[0]!;
    for (const id of x.ids) expect(id).toBeLessThan(task.spec.numFeatures);
    // With a model spec, its dictionary is reused (a minFrequency of its own is ignored).
    const again = loadConllTask(trainPath, { model: task.spec, minFrequency: 5 });
    expect(again.spec.numFeatures).toBe(task.spec.numFeatures);
    expect(again.train.xs[1]).toEqual(task.train.xs[1]);
    const limited = loadConllTask(trainPath, { limit: 1, minFrequency: 1 });
    expect(limited.train.xs).toHaveLength(1);
    expect(limited.test).toBeUndefined();
  });

  it('test tags of types never seen in training are label -1, always wrong, and count as missed gold chunks', () => {
    // Train on sentence 1 only (no PP); the test sentence has a PP chunk.
    const testPath = join(dir, 'test-pp.txt');
    writeFileSync(testPath, 'in IN B-PP\nSeptember NNP B-NP\n');
    const task = loadConllTask(trainPath, { limit: 1, minFrequency: 1, test: `conll:${testPath}` });
    expect(task.spec.labelNames).toEqual(['B-NP', 'B-VP', 'I-NP', 'I-VP', 'O']);
    expect(Array.from(task.test!.ys[0]!)).toEqual([-1, 0]);
    expect(task.test!.unknownTags).toBe(1);
    expect(task.description).toMatch(/1 tokens carry chunk types the model cannot predict/);
    const model = new SparseChainModel({ numFeatures: task.spec.numFeatures, numLabels: task.spec.numLabels });
    const w = new Float64Array(model.dim);
    w[model.offsets.first + 4] = 1; // O first
    w[model.offsets.last + 0] = 1; // B-NP last
    const m = conllMetrics(model, w, task.test!, task.spec.labelNames);
    expect(m.scores.gold).toBe(2);
    expect(m.scores.predicted).toBe(1);
    expect(m.scores.correct).toBe(1);
    expect(m.recall).toBe(0.5);
    expect(m.testError).toBe(0.5);
  });

  it('trains, saves, and tags files and stdin (WORD POS [GOLD] PRED)', async () => {
    const task = loadConllTask(dir, { minFrequency: 1 });
    const model = new SparseChainModel({ numFeatures: task.spec.numFeatures, numLabels: task.spec.numLabels });
    const r = train(modelProblem(model, task.train.xs, task.train.ys), { lambda: 0.01, maxPasses: 100, gapThreshold: 1e-4 });
    const m = conllMetrics(model, r.w, task.train, task.spec.labelNames);
    expect(m.f1).toBe(1); // separable training set
    expect(m.testError).toBe(0);
    const modelPath = join(dir, 'chunker.gbm');
    writeModelFile(modelPath, { meta: { format: 'gapbcfw-model', spec: task.spec, lambda: 0.01, training: {} }, arrays: { w: r.w } });
    const loaded = loadModel(modelPath);
    expect(loaded.w).toEqual(r.w);
    expect(loaded.task).toBe('conll');

    // A file with gold tags: 4 columns out, F1 in the summary (on stderr: the predictions use stdout).
    let t = await cli('tag', modelPath, trainPath);
    expect(t.code, t.stderr).toBe(0);
    const lines = t.stdout.split('\n');
    expect(lines[0]).toBe('He PRP B-NP B-NP');
    expect(lines[9]).toBe('');
    expect(t.stderr).toMatch(/f1: 1\n/);
    // stdin without gold: 3 columns.
    t = await cliWithInput('The DT\ndeficit NN\nwill MD\nwiden VB\n', 'tag', modelPath);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toBe('The DT B-NP\ndeficit NN I-NP\nwill MD B-VP\nwiden VB I-VP\n\n');
    expect(t.stderr).not.toMatch(/f1/);
    // --out and --no-gold; predict is the same command.
    const outPath = join(dir, 'tagged.txt');
    expect((await cli('predict', modelPath, join(dir, 'test.txt'), '--out', outPath, '--no-gold', '--quiet')).code).toBe(0);
    expect(readFileSync(outPath, 'utf8').split('\n')[1]).toBe('account NN I-NP');
    // On the data set (conll:DIR) predict writes the test part with its gold column and reports chunk F1.
    const d = await cli('predict', modelPath, `conll:${dir}`, '--json', '--quiet');
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout.split('\n')[0]).toMatch(/^\S+ \S+ [BIO]\S* [BIO]\S*$/);
    expect(typeof d.json!.f1).toBe('number');
  });

  it('tag refuses bad usage, other model kinds and malformed input (with the line)', async () => {
    expect((await cli('tag')).stderr).toMatch(/predict takes MODEL \[INPUT\]/);
    const chainPath = join(dir, 'chain.gbm');
    writeModelFile(chainPath, { meta: { format: 'gapbcfw-model', spec: { kind: 'chain', numFeatures: 1, numLabels: 1, labelNames: ['a'] } }, arrays: { w: new Float64Array(4) } });
    expect((await cli('tag', chainPath, trainPath)).stderr).toMatch(/tag applies conll models, and .* is a chain model/);
    expect((await cli('predict', chainPath, trainPath)).stderr).toMatch(/is a chain model: give a data set KIND:PATH/);
    const task = loadConllTask(trainPath, { minFrequency: 1 });
    const modelPath = join(dir, 'zero.gbm');
    writeModelFile(modelPath, { meta: { format: 'gapbcfw-model', spec: task.spec }, arrays: { w: new Float64Array(sparseChainDim(task.spec.numFeatures, task.spec.numLabels)) } });
    const badInput = join(dir, 'bad-input.txt');
    writeFileSync(badInput, 'a DT\nb NN\n\nc NN NP x\n');
    const e = await cli('tag', modelPath, badInput);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/bad-input\.txt:4: /);
    const short = join(dir, 'short.gbm');
    writeModelFile(short, { meta: { format: 'gapbcfw-model', spec: task.spec }, arrays: { w: new Float64Array(3) } });
    expect((await cli('tag', short, trainPath)).stderr).toMatch(/w has length 3/);
  });
});

// ---------------------------------------------------------------------------------------------------
describe('CoNLL-2000 data', needsData('conll2000', 'train.txt'), () => {
  const trainFile = dataPath('conll2000', 'train.txt');
  const testFile = dataPath('conll2000', 'test.txt');

  it('has 8,936 training and 2,012 test sentences (211,727 / 47,377 tokens)', () => {
    const tr = loadConll(trainFile);
    const te = loadConll(testFile);
    expect(tr).toHaveLength(8936);
    expect(te).toHaveLength(2012);
    expect(conllTokenCount(tr)).toBe(211727);
    expect(conllTokenCount(te)).toBe(47377);
    const tags = ChunkTagSet.fromSentences(tr);
    expect(tags.size).toBe(23); // 22 in train, plus I-LST (used in test)
    expect(ChunkTagSet.fromSentences(tr, { complete: false }).size).toBe(22);
    for (const s of te) tags.encode(s, testFile); // every test tag is known
  });

  it('sparse and dense paths give the same scores and gaps on a small subset', () => {
    const sentences = loadConll(trainFile).slice(0, 15);
    const tags = ChunkTagSet.fromSentences(sentences);
    const dict = FeatureDictionary.build(sentences.map((s) => conllAttributes(s.words, s.pos)), { minFrequency: 1 });
    const { xs, ys } = encodeConll(sentences, dict, tags);
    const F = dict.size;
    const K = tags.size;
    const dense = xs.map((x) => {
      const T = x.offsets.length - 1;
      const d = new Float64Array(T * F);
      for (let t = 0; t < T; t++) for (let j = x.offsets[t]!; j < x.offsets[t + 1]!; j++) d[t * F + x.ids[j]!]! += 1;
      return d;
    });
    const sparse = new SparseChainModel({ numFeatures: F, numLabels: K });
    const denseModel = new ChainModel({ numFeatures: F, numLabels: K });
    const map = toDenseLayout(F, K);
    const w = randomW(sparse.dim, 5, 0.1);
    const wd = permute(w, map);
    xs.forEach((x, i) => {
      const y = sparse.lossAugmentedDecode(w, x, ys[i]!);
      expect(y).toEqual(denseModel.lossAugmentedDecode(wd, dense[i]!, ys[i]!));
      expect(sparse.score(w, x, y)).toBeCloseTo(denseModel.score(wd, dense[i]!, y), 10);
      expect(dotSparse(w, sparse.psi(x, ys[i]!, y))).toBeCloseTo(dotSparse(wd, denseModel.psi(dense[i]!, ys[i]!, y)), 10);
    });
    const options = { lambda: 0.01, maxPasses: 10, gapCheck: 5, gapThreshold: 0, seed: 2 };
    const a = train(modelProblem(sparse, xs, ys), options);
    const b = train(modelProblem(denseModel, dense, ys), options);
    expect(a.gap!).toBeCloseTo(b.gap!, 10);
    expect(a.primal!).toBeCloseTo(b.primal!, 10);
    expect(a.dual!).toBeCloseTo(b.dual!, 10);
  });

  it('the CoNLL page\'s command, as written, reaches the papers\' chunk F1 (>= 0.93 on the 2,012 test sentences)', async () => {
    const argv = documentedCommand('docs/models/conll.md', 'train conll:conll2000/ --lambda 1e-2 --gap-threshold');
    expect(documentedCommand('README.md', 'train conll:')).toEqual(argv.filter((a, k) => a !== '--trace' && argv[k - 1] !== '--trace'));
    const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-conll-page-'));
    const r = await cli(...runnable(argv, dir), '--json', '--quiet');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json!.thresholdReached).toBe(true);
    expect(r.json!.n).toBe(8936);
    expect(r.json!.nTest).toBe(2012);
    expect(r.json!.gapIsExact).toBe(true);
    expect(r.json!.gap as number).toBeLessThanOrEqual(0.005);
    expect(r.json!.f1 as number).toBeGreaterThanOrEqual(0.93);
  }, 900_000);

  it('a small training subset reaches a sensible chunk F1 on test sentences', () => {
    const task = loadConllTask(trainFile, { test: `conll:${testFile}`, limit: 200, testLimit: 300, minFrequency: 2 });
    expect(task.spec.numLabels).toBeGreaterThanOrEqual(17);
    const model = new SparseChainModel({ numFeatures: task.spec.numFeatures, numLabels: task.spec.numLabels });
    const r = train(modelProblem(model, task.train.xs, task.train.ys), { lambda: 0.01, maxPasses: 20, gapThreshold: 0.01 });
    const m = conllMetrics(model, r.w, task.test!, task.spec.labelNames);
    expect(m.f1).toBeGreaterThan(0.8);
    expect(m.accuracy).toBeGreaterThan(0.85);
    expect(m.testError).toBeLessThan(0.15);
  });
});
