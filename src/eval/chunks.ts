/**
 * Chunk-level evaluation by the rules of `conlleval` (the CoNLL-2000 shared task's evaluation script):
 * precision, recall and F1 of chunks, overall and per chunk type, and token accuracy.
 *
 * A tag is `PREFIX-TYPE` (split at dashes: the prefix is the part before the first dash and the type the
 * part between the first and the second, as conlleval's `split(/-/)`) or `O`. A chunk starts at a `B-`
 * tag, at an `I-` tag after `O` (an I- without B-), and at any tag whose type differs from the previous
 * tag's type (`B-NP I-VP`: the I-VP starts a VP chunk). It ends before `B-` or `O`, before a change of
 * type, and at the end of the sentence: sentence ends count as `O`, so chunks never cross them (conlleval
 * reads blank lines as `O` since 1999). conlleval's `E-`, `[` and `]` tags are handled the same way it does.
 * A predicted chunk is correct when a gold chunk has the same first token, last token and type.
 *
 * Precision = correct / predicted chunks, recall = correct / gold chunks (each 0 when its denominator is
 * 0), F1 = 2PR / (P + R) (0 when P + R = 0). Token accuracy counts tokens whose prefix and type match.
 * Values are fractions in [0, 1]; conlleval prints them as percentages.
 */
import { check } from '../core/errors.js';

/** A chunk: tokens start..end-1 of one sentence, of one type. */
export interface Chunk {
  type: string;
  /** First token. */
  start: number;
  /** One past the last token. */
  end: number;
}

/** Counts of one chunk type or of all chunks. */
export interface ChunkCounts {
  /** Chunks in the gold tags. */
  gold: number;
  /** Chunks in the predicted tags. */
  predicted: number;
  /** Predicted chunks that match a gold chunk exactly (span and type). */
  correct: number;
}

/** Precision, recall and F1 with the counts behind them. */
export interface PrfScores extends ChunkCounts {
  precision: number;
  recall: number;
  f1: number;
}

/** Result of a chunk evaluation. */
export interface ChunkScores extends PrfScores {
  /** Tokens evaluated. */
  tokens: number;
  /** Tokens whose predicted tag equals the gold tag (prefix and type). */
  correctTags: number;
  /** correctTags / tokens (0 for no tokens). */
  tokenAccuracy: number;
  /** Sentences evaluated. */
  sentences: number;
  /** Scores per chunk type (types of gold or predicted chunks), sorted by type. */
  perType: Record<string, PrfScores>;
}

/** conlleval's split of a tag into (prefix, type); `O` gives ('O', ''). */
export function splitTag(tag: string): [prefix: string, type: string] {
  const a = tag.indexOf('-');
  if (a < 0) return [tag, ''];
  const b = tag.indexOf('-', a + 1);
  return [tag.slice(0, a), b < 0 ? tag.slice(a + 1) : tag.slice(a + 1, b)];
}

/** conlleval `endOfChunk`: does a chunk end between the previous tag and the current one? */
export function endOfChunk(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (prevTag === 'B' && (tag === 'B' || tag === 'O')) return true;
  if (prevTag === 'I' && (tag === 'B' || tag === 'O')) return true;
  if (prevTag === 'E' && (tag === 'E' || tag === 'I' || tag === 'O')) return true;
  if (prevTag !== 'O' && prevTag !== '.' && prevType !== type) return true;
  return prevTag === ']' || prevTag === '[';
}

/** conlleval `startOfChunk`: does a chunk start at the current tag? */
export function startOfChunk(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (tag === 'B' && (prevTag === 'B' || prevTag === 'I' || prevTag === 'O')) return true;
  if (prevTag === 'O' && (tag === 'I' || tag === 'E')) return true;
  if (prevTag === 'E' && (tag === 'E' || tag === 'I')) return true;
  if (tag !== 'O' && tag !== '.' && prevType !== type) return true;
  return tag === '[' || tag === ']';
}

/** The chunks of one sentence's tags by the conlleval rules (see the module documentation). */
export function extractChunks(tags: readonly string[]): Chunk[] {
  const chunks: Chunk[] = [];
  let prevTag = 'O';
  let prevType = '';
  let open: Chunk | null = null;
  for (let t = 0; t <= tags.length; t++) {
    const [tag, type] = t < tags.length ? splitTag(tags[t]!) : ['O', ''];
    if (open && endOfChunk(prevTag, tag, prevType, type)) {
      open.end = t;
      chunks.push(open);
      open = null;
    }
    if (t < tags.length && startOfChunk(prevTag, tag, prevType, type)) {
      if (open) {
        // conlleval counts every start as a chunk; close the open one (never happens with IOB tags).
        open.end = t;
        chunks.push(open);
      }
      open = { type, start: t, end: t + 1 };
    }
    prevTag = tag;
    prevType = type;
  }
  if (open) {
    // Only reachable with tags conlleval never closes at a sentence end (e.g. '.'); close it here.
    open.end = tags.length;
    chunks.push(open);
  }
  return chunks;
}

function prf(c: ChunkCounts): PrfScores {
  const precision = c.predicted > 0 ? c.correct / c.predicted : 0;
  const recall = c.gold > 0 ? c.correct / c.gold : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { ...c, precision, recall, f1 };
}

/** Accumulates chunk counts sentence by sentence. */
export class ChunkEvaluator {
  private readonly total: ChunkCounts = { gold: 0, predicted: 0, correct: 0 };
  private readonly byType = new Map<string, ChunkCounts>();
  private tokens = 0;
  private correctTags = 0;
  private sentences = 0;

  private counts(type: string): ChunkCounts {
    let c = this.byType.get(type);
    if (!c) this.byType.set(type, (c = { gold: 0, predicted: 0, correct: 0 }));
    return c;
  }

  /** Adds one sentence: its gold tags and the predicted tags (same length). */
  add(gold: readonly string[], predicted: readonly string[]): void {
    check(gold.length === predicted.length, () => `gold has ${gold.length} tags but the prediction ${predicted.length}`);
    this.sentences++;
    this.tokens += gold.length;
    for (let t = 0; t < gold.length; t++) {
      const [gp, gt] = splitTag(gold[t]!);
      const [pp, pt] = splitTag(predicted[t]!);
      if (gp === pp && gt === pt) this.correctTags++;
    }
    const g = extractChunks(gold);
    const p = extractChunks(predicted);
    const goldKeys = new Set<string>();
    for (const c of g) {
      this.total.gold++;
      this.counts(c.type).gold++;
      goldKeys.add(`${c.start} ${c.end} ${c.type}`);
    }
    for (const c of p) {
      this.total.predicted++;
      const counts = this.counts(c.type);
      counts.predicted++;
      if (goldKeys.has(`${c.start} ${c.end} ${c.type}`)) {
        this.total.correct++;
        counts.correct++;
      }
    }
  }

  /** The scores of everything added so far. */
  result(): ChunkScores {
    const perType: Record<string, PrfScores> = {};
    for (const type of [...this.byType.keys()].sort()) perType[type] = prf(this.byType.get(type)!);
    return {
      ...prf(this.total),
      tokens: this.tokens,
      correctTags: this.correctTags,
      tokenAccuracy: this.tokens > 0 ? this.correctTags / this.tokens : 0,
      sentences: this.sentences,
      perType,
    };
  }
}

/** Chunk scores of predicted tag sequences against gold ones (one array of tags per sentence). */
export function chunkScores(gold: readonly (readonly string[])[], predicted: readonly (readonly string[])[]): ChunkScores {
  check(gold.length === predicted.length, () => `got ${gold.length} gold sentences but ${predicted.length} predicted`);
  const e = new ChunkEvaluator();
  for (let i = 0; i < gold.length; i++) e.add(gold[i]!, predicted[i]!);
  return e.result();
}

/** Chunk scores of label-id sequences, with `labelNames[id]` the tag of id. */
export function chunkScoresFromIds(gold: readonly ArrayLike<number>[], predicted: readonly ArrayLike<number>[], labelNames: readonly string[]): ChunkScores {
  check(gold.length === predicted.length, () => `got ${gold.length} gold sentences but ${predicted.length} predicted`);
  const names = (y: ArrayLike<number>) => {
    const out = new Array<string>(y.length);
    for (let t = 0; t < y.length; t++) {
      const name = labelNames[y[t]!];
      check(name !== undefined, () => `label ${y[t]} has no name (${labelNames.length} labels)`);
      out[t] = name;
    }
    return out;
  };
  const e = new ChunkEvaluator();
  for (let i = 0; i < gold.length; i++) e.add(names(gold[i]!), names(predicted[i]!));
  return e.result();
}

/** A report in the layout of conlleval's output (percentages with two decimals). */
export function formatChunkReport(s: ChunkScores): string {
  const pct = (x: number) => (100 * x).toFixed(2).padStart(6);
  const lines = [
    `processed ${s.tokens} tokens with ${s.gold} phrases; found: ${s.predicted} phrases; correct: ${s.correct}.`,
    `accuracy: ${pct(s.tokenAccuracy)}%; precision: ${pct(s.precision)}%; recall: ${pct(s.recall)}%; FB1: ${pct(s.f1)}`,
  ];
  for (const [type, c] of Object.entries(s.perType)) {
    lines.push(`${type.padStart(17)}: precision: ${pct(c.precision)}%; recall: ${pct(c.recall)}%; FB1: ${pct(c.f1)}  ${c.predicted}`);
  }
  return `${lines.join('\n')}\n`;
}
