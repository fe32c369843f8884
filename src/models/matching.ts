/**
 * Word alignment as bipartite matching (Taskar, Lacoste-Julien & Klein 2005, "A discriminative matching
 * approach to word alignment"; the matching experiment of Lacoste-Julien et al. 2013, Sec. 6 / App. F).
 *
 * An input is a sentence pair with E English and F French words and a feature vector f(j, k) in R^D for
 * every word pair; a label is a matching, written as an Int32Array a of length E with a[j] = k (English
 * word j aligned to French word k) or -1 (j unaligned, i.e. matched to a null node); distinct j have
 * distinct a[j] >= 0. The joint feature map is phi(x, a) = sum_{j: a[j] >= 0} f(j, a[j]), so a matching's
 * score is the sum of its edge scores s_jk = <w, f(j, k)> and unaligned words score 0.
 *
 * Loss: the asymmetric Hamming distance on edge indicators of the papers (Taskar et al. 2005, Sec. 4;
 * 2013 paper, App. F: "precision error cost is 1 while the recall error cost is 3"):
 *
 *   L(a*, a) = ( c+ * #{j : a[j] >= 0, a[j] != a*[j]}      (proposed links not in the target matching)
 *              + c- * #{j : a*[j] >= 0, a[j] != a*[j]} )   (target links missed)
 *              / N(a*),
 *
 * with c+ = 1, c- = 3 by default. "Wrongly proposed" is relative to the target matching a* (the
 * papers' y_i), which is what makes L(a*, a*) = 0 and L >= 0, as the SSVM needs; for the Hansards data
 * a* is a maximum matching inside the sure links (see `sureLinkMatching` in data/alignment.ts). The
 * normaliser N(a*) keeps losses O(1) like the other models: by default the number of target links
 * (so missing every target link and proposing nothing costs c-), or E, or 1.
 *
 * Loss augmentation is exact: L is linear in the edge indicators y_jk,
 *   L = c- |a*| / N + sum_{(j,k) in a} ( [k != a*[j]] c+ - [k == a*[j]] c- ) / N,
 * so the loss-augmented oracle is the maximum-weight matching of s_jk + (c+ or -c-)/N (the constant is
 * irrelevant to the argmax), solved exactly by the Hungarian algorithm on the padded problem.
 */
import { check, InputError } from '../core/errors.js';
import type { StructuredModel } from '../core/problem.js';
import { SparseAccumulator, type SparseVector } from '../core/vector.js';
import { Hungarian } from './hungarian.js';

/** A sentence pair as the model sees it: E x F word pairs, D features each. */
export interface MatchingInput {
  /** E: number of words on the row side (English). */
  rows: number;
  /** F: number of words on the column side (French). */
  cols: number;
  /** D: features per word pair. */
  numFeatures: number;
  /** Row-major E x F x D: the feature vector of (j, k) starts at (j * F + k) * D. */
  features: Float64Array | Float32Array;
}

/** How the asymmetric Hamming loss is normalised per example. */
export type LossNormaliser = 'links' | 'rows' | 'none';

export interface MatchingModelOptions {
  /** D, the length of every edge feature vector (= dim of w). */
  numFeatures: number;
  /** c+: cost of a proposed link that is not in the target (precision error). Default 1. */
  costFalsePositive?: number;
  /** c-: cost of a missed target link (recall error). Default 3. */
  costFalseNegative?: number;
  /** N(a*): 'links' = max(1, number of target links) (default), 'rows' = E, 'none' = 1. */
  normaliser?: LossNormaliser;
}

/**
 * The bipartite matching SSVM. Oracle: Hungarian algorithm on the E x (F + E) padded problem, O(E^2 (E + F)),
 * after O(E F D) edge scoring. `labelScores` scores the edges once and each label in O(E).
 */
export class MatchingModel implements StructuredModel<MatchingInput, Int32Array> {
  readonly dim: number;
  readonly costFalsePositive: number;
  readonly costFalseNegative: number;
  readonly normaliser: LossNormaliser;
  private readonly acc: SparseAccumulator;
  private readonly hungarian = new Hungarian();
  private scores = new Float64Array(0);

  constructor(options: MatchingModelOptions) {
    const D = options.numFeatures;
    check(Number.isInteger(D) && D >= 1, `numFeatures must be a positive integer, got ${D}`);
    this.dim = D;
    this.costFalsePositive = options.costFalsePositive ?? 1;
    this.costFalseNegative = options.costFalseNegative ?? 3;
    check(Number.isFinite(this.costFalsePositive) && this.costFalsePositive >= 0, `costFalsePositive must be a finite number >= 0, got ${this.costFalsePositive}`);
    check(Number.isFinite(this.costFalseNegative) && this.costFalseNegative >= 0, `costFalseNegative must be a finite number >= 0, got ${this.costFalseNegative}`);
    this.normaliser = options.normaliser ?? 'links';
    check(['links', 'rows', 'none'].includes(this.normaliser), `normaliser must be links, rows or none, got '${this.normaliser}'`);
    this.acc = new SparseAccumulator(D, 4 * D);
  }

  validate(x: MatchingInput, y: Int32Array, where: string): void {
    this.checkInput(x, where);
    if (!(y instanceof Int32Array)) throw new InputError(`${where}: a matching must be an Int32Array`);
    checkMatching(y, x.rows, x.cols, where);
  }

  private checkInput(x: MatchingInput, where: string): void {
    if (x === null || typeof x !== 'object') throw new InputError(`${where}: input must be a MatchingInput`);
    const { rows, cols, numFeatures, features } = x;
    check(Number.isInteger(rows) && rows >= 0 && Number.isInteger(cols) && cols >= 0, () => `${where}: rows and cols must be non-negative integers, got ${rows} x ${cols}`);
    check(numFeatures === this.dim, () => `${where}: input has ${numFeatures} features per pair, the model ${this.dim}`);
    if (!(features instanceof Float64Array || features instanceof Float32Array)) throw new InputError(`${where}: features must be a Float64Array or Float32Array`);
    check(features.length === rows * cols * numFeatures, () => `${where}: features has ${features.length} values, expected E*F*D = ${rows}*${cols}*${numFeatures}`);
    for (let q = 0; q < features.length; q++) {
      if (!Number.isFinite(features[q])) {
        const pair = Math.floor(q / numFeatures);
        throw new InputError(`${where}: feature ${q % numFeatures} of pair (${Math.floor(pair / cols)}, ${pair % cols}) is ${features[q]}`);
      }
    }
  }

  private checkW(w: Float64Array): void {
    if (!(w instanceof Float64Array) || w.length !== this.dim) throw new InputError(`w must be a Float64Array of length ${this.dim}`);
  }

  /** Edge scores s[j * F + k] = <w, f(j, k)> into `out` (length >= E * F). */
  edgeScores(w: Float64Array, x: MatchingInput, out: Float64Array): void {
    const { rows, cols, features } = x;
    const D = this.dim;
    const P = rows * cols;
    for (let e = 0; e < P; e++) {
      const base = e * D;
      let s = 0;
      for (let d = 0; d < D; d++) s += w[d]! * features[base + d]!;
      out[e] = s;
    }
  }

  private scoresFor(w: Float64Array, x: MatchingInput): Float64Array {
    this.checkW(w);
    const P = x.rows * x.cols;
    if (this.scores.length < P) this.scores = new Float64Array(P);
    this.edgeScores(w, x, this.scores);
    return this.scores;
  }

  /** N(a*) of the loss. */
  lossNormaliser(yTrue: Int32Array): number {
    if (this.normaliser === 'none') return 1;
    if (this.normaliser === 'rows') return Math.max(1, yTrue.length);
    let links = 0;
    for (let j = 0; j < yTrue.length; j++) if (yTrue[j]! >= 0) links++;
    return Math.max(1, links);
  }

  lossAugmentedDecode(w: Float64Array, x: MatchingInput, yTrue: Int32Array): Int32Array {
    const s = this.scoresFor(w, x);
    const { rows, cols } = x;
    check(yTrue.length === rows, () => `target matching has length ${yTrue.length}, the input ${rows} rows`);
    this.addLossAugmentation(yTrue, cols, s);
    const out = new Int32Array(rows);
    this.hungarian.maxWeightMatching(s.subarray(0, rows * cols), rows, cols, out);
    return out;
  }

  /**
   * Adds the loss augmentation to edge scores s (row-major E x F) and returns the constant c-|a*|/N, so
   * that for every matching a:  L(a*, a) = constant + sum_{j: a[j] >= 0} delta[j * F + a[j]], with delta
   * what was added: +c+/N on every edge (it would be a false positive) except the target's, which get
   * -c-/N (choosing them avoids a miss).
   */
  addLossAugmentation(yTrue: Int32Array, cols: number, s: Float64Array): number {
    const N = this.lossNormaliser(yTrue);
    const plus = this.costFalsePositive / N;
    const minus = this.costFalseNegative / N;
    let links = 0;
    for (let j = 0; j < yTrue.length; j++) {
      const t = yTrue[j]!;
      if (t >= 0) links++;
      const base = j * cols;
      for (let k = 0; k < cols; k++) s[base + k]! += k === t ? -minus : plus;
    }
    return links * minus;
  }

  decode(w: Float64Array, x: MatchingInput): Int32Array {
    const s = this.scoresFor(w, x);
    const out = new Int32Array(x.rows);
    this.hungarian.maxWeightMatching(s.subarray(0, x.rows * x.cols), x.rows, x.cols, out);
    return out;
  }

  /** <w, phi(x, a)> = sum of the chosen edges' scores. */
  score(w: Float64Array, x: MatchingInput, y: Int32Array): number {
    this.checkW(w);
    const D = this.dim;
    let s = 0;
    for (let j = 0; j < y.length; j++) {
      const k = y[j]!;
      if (k < 0) continue;
      const base = (j * x.cols + k) * D;
      for (let d = 0; d < D; d++) s += w[d]! * x.features[base + d]!;
    }
    return s;
  }

  psi(x: MatchingInput, yTrue: Int32Array, y: Int32Array): SparseVector {
    const { cols, features } = x;
    const D = this.dim;
    const acc = this.acc;
    check(y.length === yTrue.length, () => `label has length ${y.length}, expected ${yTrue.length}`);
    for (let j = 0; j < y.length; j++) {
      const a = yTrue[j]!;
      const b = y[j]!;
      if (a === b) continue;
      if (a >= 0) {
        const base = (j * cols + a) * D;
        for (let d = 0; d < D; d++) {
          const v = features[base + d]!;
          if (v !== 0) acc.add(d, v);
        }
      }
      if (b >= 0) {
        const base = (j * cols + b) * D;
        for (let d = 0; d < D; d++) {
          const v = features[base + d]!;
          if (v !== 0) acc.add(d, -v);
        }
      }
    }
    return acc.take();
  }

  loss(yTrue: Int32Array, y: Int32Array): number {
    let fp = 0;
    let fn = 0;
    for (let j = 0; j < yTrue.length; j++) {
      const a = yTrue[j]!;
      const b = y[j]!;
      if (a === b) continue;
      if (b >= 0) fp++;
      if (a >= 0) fn++;
    }
    return (this.costFalsePositive * fp + this.costFalseNegative * fn) / this.lossNormaliser(yTrue);
  }

  labelKey(y: Int32Array): string {
    return y.join(',');
  }

  labelToJSON(y: Int32Array): number[] {
    return Array.from(y);
  }

  labelFromJSON(value: unknown): Int32Array {
    check(Array.isArray(value) && value.every((k) => Number.isInteger(k) && k >= -1), 'a matching must be an array of integers >= -1');
    const y = Int32Array.from(value as number[]);
    checkMatching(y, y.length, Number.MAX_SAFE_INTEGER, 'matching');
    return y;
  }

  /** Edge scores once, then O(E) per label: out[q] = L(a*, a_q) + score(a_q) - score(a*). */
  labelScores(w: Float64Array, x: MatchingInput, yTrue: Int32Array, labels: readonly Int32Array[], out: Float64Array): void {
    const s = this.scoresFor(w, x);
    const cols = x.cols;
    const sum = (y: Int32Array) => {
      let t = 0;
      for (let j = 0; j < y.length; j++) if (y[j]! >= 0) t += s[j * cols + y[j]!]!;
      return t;
    };
    const truth = sum(yTrue);
    for (let q = 0; q < labels.length; q++) out[q] = this.loss(yTrue, labels[q]!) + sum(labels[q]!) - truth;
  }
}

/** Throws InputError unless y is a matching of rows x cols (entries -1 or distinct column ids). */
export function checkMatching(y: Int32Array, rows: number, cols: number, where: string): void {
  check(y.length === rows, () => `${where}: matching has length ${y.length}, expected ${rows}`);
  const seen = new Set<number>();
  for (let j = 0; j < y.length; j++) {
    const k = y[j]!;
    if (k === -1) continue;
    check(k >= 0 && k < cols, () => `${where}: row ${j} is matched to column ${k}, outside -1..${cols - 1}`);
    check(!seen.has(k), () => `${where}: column ${k} is matched twice (not a matching)`);
    seen.add(k);
  }
}

// -------------------------------------------------------------------------------------------------
// Features for English-French word alignment.

/** Lower-cases a token (the Hansards text keeps "I", "Mr." and proper names capitalised). */
export function normalizeToken(t: string): string {
  return t.toLowerCase();
}

/** Removes diacritics (é -> e, ç -> c) for the orthographic tests. */
export function foldAccents(t: string): string {
  return t.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

/**
 * Sentence-level co-occurrence counts over a parallel corpus: C(e) and C(f) count the sentence pairs
 * whose English (French) side contains the word, C(e, f) the pairs containing both (each pair counts
 * once however often the words repeat). Tokens are lower-cased.
 */
export class CooccurrenceStats {
  private readonly eIds = new Map<string, number>();
  private readonly fIds = new Map<string, number>();
  private eCount: number[] = [];
  private fCount: number[] = [];
  private readonly joint = new Map<number, number>();
  private sentences = 0;
  /** Word-id packing: key = eId * 2^24 + fId (exact in doubles for vocabularies below 2^24). */
  private static readonly SHIFT = 2 ** 24;

  constructor(pairs: Iterable<readonly [readonly string[], readonly string[]]> = []) {
    for (const [e, f] of pairs) this.add(e, f);
  }

  /** Number of sentence pairs counted. */
  get numSentences(): number {
    return this.sentences;
  }

  private id(map: Map<string, number>, counts: number[], w: string): number {
    let i = map.get(w);
    if (i === undefined) {
      i = map.size;
      if (i >= CooccurrenceStats.SHIFT) throw new InputError('vocabulary too large for CooccurrenceStats');
      map.set(w, i);
      counts.push(0);
    }
    return i;
  }

  /** Adds one sentence pair. */
  add(e: readonly string[], f: readonly string[]): void {
    const es = [...new Set(e.map(normalizeToken))].map((w) => this.id(this.eIds, this.eCount, w));
    const fs = [...new Set(f.map(normalizeToken))].map((w) => this.id(this.fIds, this.fCount, w));
    for (const i of es) this.eCount[i]!++;
    for (const i of fs) this.fCount[i]!++;
    for (const i of es) {
      const base = i * CooccurrenceStats.SHIFT;
      for (const k of fs) this.joint.set(base + k, (this.joint.get(base + k) ?? 0) + 1);
    }
    this.sentences++;
  }

  /** C(e) for an English word (lower-cased first). */
  countE(e: string): number {
    const i = this.eIds.get(normalizeToken(e));
    return i === undefined ? 0 : this.eCount[i]!;
  }

  /** C(f) for a French word. */
  countF(f: string): number {
    const i = this.fIds.get(normalizeToken(f));
    return i === undefined ? 0 : this.fCount[i]!;
  }

  /** C(e, f). */
  countJoint(e: string, f: string): number {
    const i = this.eIds.get(normalizeToken(e));
    const k = this.fIds.get(normalizeToken(f));
    if (i === undefined || k === undefined) return 0;
    return this.joint.get(i * CooccurrenceStats.SHIFT + k) ?? 0;
  }

  /** Dice coefficient 2 C(e, f) / (C(e) + C(f)) in [0, 1]; 0 when either word was never seen. */
  dice(e: string, f: string): number {
    const ce = this.countE(e);
    const cf = this.countF(f);
    if (ce === 0 || cf === 0) return 0;
    return (2 * this.countJoint(e, f)) / (ce + cf);
  }
}

/**
 * Base features of a word pair (j, k) of a sentence pair with E English words e_1..e_E and F French words
 * f_1..f_F. Orthographic tests use lower-cased, accent-folded forms e', f'. All values lie in [0, 1].
 */
export const BASE_FEATURES: readonly { name: string; doc: string }[] = [
  { name: 'bias', doc: '1 on every pair (with the loss costs, sets how many links are worth proposing)' },
  { name: 'dice', doc: 'Dice coefficient 2C(e,f)/(C(e)+C(f)) of sentence co-occurrence counts (unlabelled sample + training fold)' },
  { name: 'diceBestForE', doc: '1 if f has the highest Dice with e among the French words of this pair (Dice > 0)' },
  { name: 'diceBestForF', doc: '1 if e has the highest Dice with f among the English words of this pair (Dice > 0)' },
  { name: 'neighbourDice', doc: 'mean Dice of the diagonal neighbours (e_{j-1}, f_{k-1}) and (e_{j+1}, f_{k+1}) (0 outside the sentence)' },
  { name: 'relDist', doc: 'relative position difference |j/E - k/F|' },
  { name: 'relDistSq', doc: '|j/E - k/F|^2' },
  { name: 'exact', doc: "1 if the lower-cased words are identical (numbers, names, punctuation, 'a', ...)" },
  { name: 'exactFolded', doc: "1 if identical only after removing accents ('federal' / 'fédéral')" },
  { name: 'prefixRatio', doc: "length of the common prefix of e' and f' / max(|e'|, |f'|)" },
  { name: 'prefix4', doc: "cognate test of Simard et al. (1992): both have >= 4 letters and the same first 4" },
  { name: 'editSim', doc: "1 - Levenshtein(e', f') / max(|e'|, |f'|)" },
  { name: 'lcsr', doc: "longest common subsequence ratio LCS(e', f') / max(|e'|, |f'|) (Melamed 1995)" },
  { name: 'lcsrCognate', doc: 'cognate test of Melamed (1995): LCSR >= 0.58 and both words have >= 4 letters' },
  { name: 'bothNumeric', doc: '1 if both words contain a digit' },
  { name: 'bothPunct', doc: '1 if both words are punctuation only' },
  { name: 'punctMismatch', doc: 'exactly one of the two words is punctuation' },
  { name: 'logFreqE', doc: 'log(1 + C(e)) / log(1 + number of counted sentence pairs)' },
  { name: 'logFreqF', doc: 'log(1 + C(f)) / log(1 + number of counted sentence pairs)' },
  { name: 'freqDiff', doc: '|logFreqE - logFreqF|' },
  { name: 'unseenE', doc: '1 if e never occurs in the counted text (C(e) = 0: Dice carries no information)' },
  { name: 'unseenF', doc: '1 if C(f) = 0' },
  { name: 'lengthDiff', doc: '| |e| - |f| | / max(|e|, |f|) in characters' },
  { name: 'bothShort', doc: 'both words have <= 3 characters and are not punctuation (function words)' },
  { name: 'sentLenDiff', doc: '|E - F| / max(E, F), constant over the pair (lets the bias depend on length mismatch)' },
];

/** The base features whose pairwise products (i < j) are added, as in the papers' feature conjunctions. */
export const PRODUCT_CORE: readonly string[] = [
  'dice', 'diceBestForE', 'diceBestForF', 'neighbourDice', 'relDist', 'exact', 'prefixRatio', 'editSim', 'logFreqE', 'logFreqF', 'bothPunct', 'bothShort',
];

/** Names of all features: the base features, then `a*b` for every pair a < b of PRODUCT_CORE (D = 25 + 66 = 91). */
export const ALIGNMENT_FEATURE_NAMES: readonly string[] = (() => {
  const names = BASE_FEATURES.map((f) => f.name);
  for (let a = 0; a < PRODUCT_CORE.length; a++) for (let b = a + 1; b < PRODUCT_CORE.length; b++) names.push(`${PRODUCT_CORE[a]}*${PRODUCT_CORE[b]}`);
  return names;
})();

const PUNCT = /^[\p{P}\p{S}]+$/u;
const DIGIT = /\p{Nd}/u;

function levenshtein(a: string, b: string, row: Int32Array): number {
  const m = b.length;
  for (let k = 0; k <= m; k++) row[k] = k;
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0]!;
    row[0] = i;
    for (let k = 1; k <= m; k++) {
      const up = row[k]!;
      row[k] = Math.min(up + 1, row[k - 1]! + 1, diag + (a.charCodeAt(i - 1) === b.charCodeAt(k - 1) ? 0 : 1));
      diag = up;
    }
  }
  return row[m]!;
}

function lcs(a: string, b: string, row: Int32Array): number {
  const m = b.length;
  row.fill(0, 0, m + 1);
  for (let i = 1; i <= a.length; i++) {
    let diag = 0;
    for (let k = 1; k <= m; k++) {
      const up = row[k]!;
      row[k] = a.charCodeAt(i - 1) === b.charCodeAt(k - 1) ? diag + 1 : Math.max(up, row[k - 1]!);
      diag = up;
    }
  }
  return row[m]!;
}

interface WordInfo {
  norm: string;
  folded: string;
  punct: boolean;
  numeric: boolean;
  logFreq: number;
  unseen: boolean;
}

/**
 * Computes the D = {@link ALIGNMENT_FEATURE_NAMES}.length features of every word pair of a sentence pair
 * from co-occurrence statistics (which must not contain the sentences being evaluated).
 */
export class AlignmentFeaturizer {
  readonly numFeatures = ALIGNMENT_FEATURE_NAMES.length;
  private readonly coreIndex: number[];
  private row = new Int32Array(64);

  constructor(readonly stats: CooccurrenceStats) {
    const names = BASE_FEATURES.map((f) => f.name);
    this.coreIndex = PRODUCT_CORE.map((n) => names.indexOf(n));
  }

  private info(w: string, count: number, logN: number): WordInfo {
    const norm = normalizeToken(w);
    return {
      norm,
      folded: foldAccents(norm),
      punct: PUNCT.test(norm),
      numeric: DIGIT.test(norm),
      logFreq: logN > 0 ? Math.log1p(count) / logN : 0,
      unseen: count === 0,
    };
  }

  /** Dice of every pair, row-major E x F. */
  diceMatrix(e: readonly string[], f: readonly string[]): Float64Array {
    const out = new Float64Array(e.length * f.length);
    for (let j = 0; j < e.length; j++) for (let k = 0; k < f.length; k++) out[j * f.length + k] = this.stats.dice(e[j]!, f[k]!);
    return out;
  }

  /** Features of every word pair of (e, f), as a `MatchingInput` (Float32 storage). */
  featurize(e: readonly string[], f: readonly string[]): MatchingInput {
    const E = e.length;
    const F = f.length;
    const D = this.numFeatures;
    const B = BASE_FEATURES.length;
    const x = new Float32Array(E * F * D);
    if (E === 0 || F === 0) return { rows: E, cols: F, numFeatures: D, features: x };
    const logN = Math.log1p(this.stats.numSentences);
    const ei = e.map((w) => this.info(w, this.stats.countE(w), logN));
    const fi = f.map((w) => this.info(w, this.stats.countF(w), logN));
    const dice = this.diceMatrix(e, f);
    const bestE = new Float64Array(E);
    const bestF = new Float64Array(F);
    for (let j = 0; j < E; j++) {
      for (let k = 0; k < F; k++) {
        const d = dice[j * F + k]!;
        if (d > bestE[j]!) bestE[j] = d;
        if (d > bestF[k]!) bestF[k] = d;
      }
    }
    const maxLen = Math.max(...ei.map((w) => w.folded.length), ...fi.map((w) => w.folded.length)) + 1;
    if (this.row.length < maxLen + 1) this.row = new Int32Array(maxLen + 1);
    const base = new Float64Array(B);
    const sentLenDiff = Math.abs(E - F) / Math.max(E, F);
    for (let j = 0; j < E; j++) {
      const a = ei[j]!;
      for (let k = 0; k < F; k++) {
        const b = fi[k]!;
        const d = dice[j * F + k]!;
        const la = a.folded.length;
        const lb = b.folded.length;
        const longest = Math.max(la, lb, 1);
        let prefix = 0;
        while (prefix < la && prefix < lb && a.folded.charCodeAt(prefix) === b.folded.charCodeAt(prefix)) prefix++;
        const lcsr = lcs(a.folded, b.folded, this.row) / longest;
        const before = j > 0 && k > 0 ? dice[(j - 1) * F + k - 1]! : 0;
        const after = j + 1 < E && k + 1 < F ? dice[(j + 1) * F + k + 1]! : 0;
        const rel = Math.abs(j / E - k / F);
        let q = 0;
        base[q++] = 1;
        base[q++] = d;
        base[q++] = d > 0 && d === bestE[j] ? 1 : 0;
        base[q++] = d > 0 && d === bestF[k] ? 1 : 0;
        base[q++] = (before + after) / 2;
        base[q++] = rel;
        base[q++] = rel * rel;
        base[q++] = a.norm === b.norm ? 1 : 0;
        base[q++] = a.norm !== b.norm && a.folded === b.folded ? 1 : 0;
        base[q++] = prefix / longest;
        base[q++] = la >= 4 && lb >= 4 && prefix >= 4 ? 1 : 0;
        base[q++] = 1 - levenshtein(a.folded, b.folded, this.row) / longest;
        base[q++] = lcsr;
        base[q++] = lcsr >= 0.58 && la >= 4 && lb >= 4 ? 1 : 0;
        base[q++] = a.numeric && b.numeric ? 1 : 0;
        base[q++] = a.punct && b.punct ? 1 : 0;
        base[q++] = a.punct !== b.punct ? 1 : 0;
        base[q++] = a.logFreq;
        base[q++] = b.logFreq;
        base[q++] = Math.abs(a.logFreq - b.logFreq);
        base[q++] = a.unseen ? 1 : 0;
        base[q++] = b.unseen ? 1 : 0;
        base[q++] = Math.abs(a.norm.length - b.norm.length) / Math.max(a.norm.length, b.norm.length, 1);
        base[q++] = !a.punct && !b.punct && a.norm.length <= 3 && b.norm.length <= 3 ? 1 : 0;
        base[q++] = sentLenDiff;
        const off = (j * F + k) * D;
        for (let t = 0; t < B; t++) x[off + t] = base[t]!;
        let p = off + B;
        const core = this.coreIndex;
        for (let s = 0; s < core.length; s++) {
          const vs = base[core[s]!]!;
          for (let t = s + 1; t < core.length; t++) x[p++] = vs * base[core[t]!]!;
        }
      }
    }
    return { rows: E, cols: F, numFeatures: D, features: x };
  }
}

/**
 * The baseline of the figures: link identical words (lower-cased) first, then the most Dice-similar ones.
 * Scores s_jk = 2 for identical words, Dice(e_j, f_k) otherwise, minus `threshold`; the maximum-weight
 * matching of these scores (a global form of competitive linking) keeps only pairs scoring above the
 * threshold. Returns a[j] = k or -1 like the model.
 */
export function diceBaseline(stats: CooccurrenceStats, e: readonly string[], f: readonly string[], threshold = 0): Int32Array {
  const E = e.length;
  const F = f.length;
  const s = new Float64Array(E * F);
  for (let j = 0; j < E; j++) {
    const a = normalizeToken(e[j]!);
    for (let k = 0; k < F; k++) s[j * F + k] = (a === normalizeToken(f[k]!) ? 2 : stats.dice(a, f[k]!)) - threshold;
  }
  const out = new Int32Array(E);
  new Hungarian().maxWeightMatching(s, E, F, out);
  return out;
}
