/**
 * English-French word alignment data: the hand-aligned Hansards sets of the NAACL-2003 shared task
 * (447 test + 37 trial sentence pairs with sure and possible links) and a small unlabelled parallel
 * sample, as staged in `word_alignment_hansards/` (see its SOURCE.md); readers, cross-validation folds,
 * target matchings, and the alignment error rate (Och & Ney 2003):
 *
 *   AER = 1 - (|A n S| + |A n P|) / (|A| + |S|),  precision = |A n P| / |A|,  recall = |A n S| / |S|,
 *
 * with A the proposed links, S the sure links and P the possible links (S included in P), all counted
 * over the whole evaluated set (not averaged per sentence).
 *
 * File formats (one sentence per line, line i of each file belongs together):
 * - `*.e`, `*.f`: `<s snum=NNNN> tokens </s>` (tokenised, mixed case).
 * - `*.align`: space-separated links `a-b` (sure) or `a-b-P` (possible; `a-b-S` is read as sure), 0-based,
 *   FIRST the French token index, THEN the English one (the staged files' order, checked against the
 *   sentence lengths). In memory every link is [english, french].
 * - unlabelled sample: `NAME.e` / `NAME.f` plain tokenised lines, no wrapper.
 * - new pairs for `gapbcfw align`: `english tokens ||| french tokens` per line.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { check, FormatError, InputError } from '../core/errors.js';
import { Hungarian } from '../models/hungarian.js';
import { CooccurrenceStats, diceBaseline, type AlignmentFeaturizer, type MatchingInput } from '../models/matching.js';
import { readDataText } from './paths.js';

/** A link [english index, french index]. */
export type Link = [number, number];

/** A hand-aligned sentence pair. */
export interface AlignedPair {
  /** `test:0001`, `trial:0012`, ... (set and snum). */
  id: string;
  e: string[];
  f: string[];
  /** Sure links S. */
  sure: Link[];
  /** Possible links that are not sure (P \ S); the evaluation uses P = S u possible. */
  possible: Link[];
}

/** A parsed sentence file: ids (snum, or the 1-based line number when unwrapped) and tokens. */
export interface SentenceFile {
  ids: string[];
  tokens: string[][];
}

function lines(text: string): string[] {
  const ls = text.split(/\r?\n/);
  if (ls.length > 0 && ls[ls.length - 1] === '') ls.pop();
  return ls;
}

const WRAPPED = /^\s*<s\s+snum=([^>\s]+)\s*>(.*)<\/s>\s*$/;

/**
 * Parses a sentence file. `wrapped`: every line must be `<s snum=ID> tokens </s>`; otherwise lines are
 * plain tokens. An empty sentence or a broken wrapper is a FormatError naming the file and line.
 */
export function parseSentences(text: string, file: string, wrapped: boolean): SentenceFile {
  const ids: string[] = [];
  const tokens: string[][] = [];
  lines(text).forEach((line, i) => {
    let body = line;
    let id = String(i + 1);
    if (wrapped) {
      const m = WRAPPED.exec(line);
      if (!m) throw new FormatError(`expected '<s snum=ID> tokens </s>', got '${line.slice(0, 60)}'`, file, i + 1);
      id = m[1]!;
      body = m[2]!;
    }
    const t = body.split(/\s+/).filter((w) => w !== '');
    if (wrapped && t.length === 0) throw new FormatError('empty sentence', file, i + 1);
    ids.push(id);
    tokens.push(t);
  });
  return { ids, tokens };
}

const LINK = /^(\d+)-(\d+)(?:-([SP]))?$/;

/**
 * Parses an alignment file (French index first, see the module notes) into sure and possible links
 * [english, french]. With `sizes` (one [E, F] per line), the number of lines and every index are
 * checked. Malformed tokens, out-of-range indices and a wrong line count are FormatErrors with the line.
 */
export function parseAlignments(text: string, file: string, sizes?: readonly (readonly [number, number])[]): { sure: Link[]; possible: Link[] }[] {
  const ls = lines(text);
  if (sizes && ls.length !== sizes.length) {
    throw new FormatError(`has ${ls.length} lines but there are ${sizes.length} sentence pairs`, file, Math.min(ls.length, sizes.length) + 1);
  }
  return ls.map((line, i) => {
    const sure = new Map<number, Link>();
    const possible = new Map<number, Link>();
    for (const tok of line.split(/\s+/)) {
      if (tok === '') continue;
      const m = LINK.exec(tok);
      if (!m) throw new FormatError(`malformed link '${tok}' (expected FRENCH-ENGLISH or FRENCH-ENGLISH-P, 0-based)`, file, i + 1);
      const fi = Number(m[1]);
      const ei = Number(m[2]);
      if (sizes) {
        const [E, F] = sizes[i]!;
        if (fi >= F) throw new FormatError(`link '${tok}': French index ${fi} is outside 0..${F - 1}`, file, i + 1);
        if (ei >= E) throw new FormatError(`link '${tok}': English index ${ei} is outside 0..${E - 1}`, file, i + 1);
      }
      const key = ei * 65536 + fi;
      if (m[3] === 'P') possible.set(key, [ei, fi]);
      else sure.set(key, [ei, fi]);
    }
    for (const key of sure.keys()) possible.delete(key);
    return { sure: [...sure.values()], possible: [...possible.values()] };
  });
}

function readText(path: string): string {
  return readDataText(path);
}

/**
 * Reads one labelled set `DIR/NAME/NAME.{e,f,align}` (NAME = test or trial), checking that the three
 * files agree line by line (same count, same snum in .e and .f, link indices inside the sentences).
 */
export function readAlignedSet(dir: string, name: string): AlignedPair[] {
  const pe = join(dir, name, `${name}.e`);
  const pf = join(dir, name, `${name}.f`);
  const pa = join(dir, name, `${name}.align`);
  const es = parseSentences(readText(pe), pe, true);
  const fs = parseSentences(readText(pf), pf, true);
  if (fs.ids.length !== es.ids.length) throw new FormatError(`has ${fs.ids.length} sentences, ${pe} has ${es.ids.length}`, pf, Math.min(fs.ids.length, es.ids.length) + 1);
  for (let i = 0; i < es.ids.length; i++) {
    if (es.ids[i] !== fs.ids[i]) throw new FormatError(`snum ${fs.ids[i]} does not match snum ${es.ids[i]} of ${pe}`, pf, i + 1);
  }
  const links = parseAlignments(readText(pa), pa, es.tokens.map((e, i) => [e.length, fs.tokens[i]!.length] as const));
  return es.ids.map((id, i) => ({ id: `${name}:${id}`, e: es.tokens[i]!, f: fs.tokens[i]!, sure: links[i]!.sure, possible: links[i]!.possible }));
}

/** The 484 labelled Hansards pairs: the 447 test pairs, then the 37 trial pairs. */
export function readHansards(dir: string): AlignedPair[] {
  return [...readAlignedSet(dir, 'test'), ...readAlignedSet(dir, 'trial')];
}

/**
 * The unlabelled parallel sample `DIR/train_sample/NAME.{e,f}` (every NAME with both files, sorted) as
 * [english tokens, french tokens] pairs; a NAME whose two files differ in line count is a FormatError.
 * Missing folder: an empty list.
 */
export function readParallelSample(dir: string): [string[], string[]][] {
  const folder = join(dir, 'train_sample');
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const out: [string[], string[]][] = [];
  for (const eName of names.filter((n) => n.endsWith('.e')).sort()) {
    const fName = `${eName.slice(0, -2)}.f`;
    if (!names.includes(fName)) continue;
    const pe = join(folder, eName);
    const pf = join(folder, fName);
    const es = parseSentences(readText(pe), pe, false).tokens;
    const fs = parseSentences(readText(pf), pf, false).tokens;
    if (es.length !== fs.length) throw new FormatError(`has ${fs.length} lines, ${eName} has ${es.length}`, pf, Math.min(es.length, fs.length) + 1);
    for (let i = 0; i < es.length; i++) if (es[i]!.length > 0 && fs[i]!.length > 0) out.push([es[i]!, fs[i]!]);
  }
  return out;
}

/**
 * Parses `english tokens ||| french tokens` lines (the input of `gapbcfw align`). A line without `|||`
 * is a FormatError naming the line (counted from `firstLine`); a blank line is an empty pair (kept, so outputs stay
 * line-aligned with the input).
 */
export function parseParallelPairs(text: string, file: string, firstLine = 1): [string[], string[]][] {
  return lines(text).map((line, i) => {
    if (line.trim() === '') return [[], []];
    const at = line.indexOf('|||');
    if (at < 0) throw new FormatError("expected 'english tokens ||| french tokens'", file, firstLine + i);
    if (line.indexOf('|||', at + 3) >= 0) throw new FormatError("more than one '|||' separator", file, firstLine + i);
    const split = (s: string) => s.split(/\s+/).filter((w) => w !== '');
    return [split(line.slice(0, at)), split(line.slice(at + 3))];
  });
}

/**
 * K contiguous folds of 0..n-1 (fold k holds indices floor(k n / K) .. floor((k+1) n / K) - 1), so with
 * the Hansards order (test pairs, then trial) every fold is a contiguous stretch of the debates.
 */
export function alignmentFolds(n: number, K: number): number[][] {
  check(Number.isInteger(K) && K >= 2 && K <= n, `the number of folds must be an integer in 2..${n}, got ${K}`);
  const folds: number[][] = [];
  for (let k = 0; k < K; k++) {
    const lo = Math.floor((k * n) / K);
    const hi = Math.floor(((k + 1) * n) / K);
    folds.push(Array.from({ length: hi - lo }, (_, i) => lo + i));
  }
  return folds;
}

/** Training and held-out parts for fold `k` of K. */
export function foldSplit<T>(items: readonly T[], K: number, k: number): { train: T[]; test: T[] } {
  const folds = alignmentFolds(items.length, K);
  check(Number.isInteger(k) && k >= 0 && k < K, `--fold must be an integer in 0..${K - 1}, got ${k}`);
  const held = new Set(folds[k]);
  return { train: items.filter((_, i) => !held.has(i)), test: items.filter((_, i) => held.has(i)) };
}

/**
 * The training target of a pair: a maximum-cardinality matching inside the sure links (sure links may
 * form many-to-one groups such as "do not" - "ne pas", which no matching covers). Ties are broken
 * towards the diagonal: weight 1 - 1e-3 |j/E - k/F| per sure link, solved exactly by the Hungarian
 * algorithm. Possible-only links are never targets.
 */
export function sureLinkMatching(pair: { e: readonly string[]; f: readonly string[]; sure: readonly Link[] }): Int32Array {
  const E = pair.e.length;
  const F = pair.f.length;
  const s = new Float64Array(E * F);
  for (const [j, k] of pair.sure) s[j * F + k] = 1 - 1e-3 * Math.abs(j / E - k / F);
  const out = new Int32Array(E);
  new Hungarian().maxWeightMatching(s, E, F, out);
  return out;
}

/** Link counts for AER, precision and recall (sum them over a set before taking ratios). */
export interface AlignmentCounts {
  /** |A| */
  proposed: number;
  /** |S| */
  sure: number;
  /** |A n S| */
  proposedSure: number;
  /** |A n P| (P includes S) */
  proposedPossible: number;
}

/** Counts of a predicted alignment (a matching a[j] = k / -1, or a list of links) against the gold links. */
export function alignmentCounts(predicted: Int32Array | readonly Link[], gold: { sure: readonly Link[]; possible: readonly Link[] }): AlignmentCounts {
  const key = (j: number, k: number) => j * 65536 + k;
  const S = new Set(gold.sure.map(([j, k]) => key(j, k)));
  const P = new Set([...S, ...gold.possible.map(([j, k]) => key(j, k))]);
  const A = new Set<number>();
  if (predicted instanceof Int32Array) {
    predicted.forEach((k, j) => {
      if (k >= 0) A.add(key(j, k));
    });
  } else {
    for (const [j, k] of predicted) A.add(key(j, k));
  }
  let proposedSure = 0;
  let proposedPossible = 0;
  for (const a of A) {
    if (S.has(a)) proposedSure++;
    if (P.has(a)) proposedPossible++;
  }
  return { proposed: A.size, sure: S.size, proposedSure, proposedPossible };
}

/** Element-wise sum of counts. */
export function sumCounts(all: Iterable<AlignmentCounts>): AlignmentCounts {
  const t: AlignmentCounts = { proposed: 0, sure: 0, proposedSure: 0, proposedPossible: 0 };
  for (const c of all) {
    t.proposed += c.proposed;
    t.sure += c.sure;
    t.proposedSure += c.proposedSure;
    t.proposedPossible += c.proposedPossible;
  }
  return t;
}

/** AER, precision and recall of (summed) counts. AER of nothing against nothing is 0; precision of no proposals is 1. */
export function alignmentMetrics(c: AlignmentCounts): { aer: number; precision: number; recall: number } {
  const denom = c.proposed + c.sure;
  return {
    aer: denom === 0 ? 0 : 1 - (c.proposedSure + c.proposedPossible) / denom,
    precision: c.proposed === 0 ? 1 : c.proposedPossible / c.proposed,
    recall: c.sure === 0 ? 1 : c.proposedSure / c.sure,
  };
}

/**
 * Co-occurrence statistics for one cross-validation fold: the unlabelled sample plus the sentences of the
 * training pairs only (never the held-out ones).
 */
export function foldStats(sample: readonly (readonly [string[], string[]])[], trainPairs: readonly AlignedPair[]): CooccurrenceStats {
  const stats = new CooccurrenceStats(sample);
  for (const p of trainPairs) stats.add(p.e, p.f);
  return stats;
}

/** Model inputs and targets of labelled pairs. */
export function matchingData(pairs: readonly AlignedPair[], featurizer: AlignmentFeaturizer): { xs: MatchingInput[]; ys: Int32Array[] } {
  if (pairs.length === 0) throw new InputError('no sentence pairs');
  return { xs: pairs.map((p) => featurizer.featurize(p.e, p.f)), ys: pairs.map((p) => sureLinkMatching(p)) };
}

/** Corpus-level AER / precision / recall of predictions on labelled pairs. */
export function evaluateAlignments(pairs: readonly AlignedPair[], predict: (p: AlignedPair, i: number) => Int32Array): { aer: number; precision: number; recall: number } {
  return alignmentMetrics(sumCounts(pairs.map((p, i) => alignmentCounts(predict(p, i), p))));
}

/** Thresholds tried by {@link tunedBaseline}. */
export const BASELINE_THRESHOLDS = [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5];

/** The identical-or-Dice baseline with its threshold tuned (lowest AER) on the training pairs. */
export function tunedBaseline(stats: CooccurrenceStats, trainPairs: readonly AlignedPair[]): { threshold: number; trainAer: number } {
  let best = { threshold: 0, trainAer: Infinity };
  for (const t of BASELINE_THRESHOLDS) {
    const { aer } = evaluateAlignments(trainPairs, (p) => diceBaseline(stats, p.e, p.f, t));
    if (aer < best.trainAer) best = { threshold: t, trainAer: aer };
  }
  return best;
}
