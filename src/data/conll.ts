/**
 * CoNLL-2000 text chunking data (Tjong Kim Sang & Buchholz 2000): reader, writer, chunk tag set, and the
 * encoding of sentences for the sparse chain (the task loader behind `conll:PATH` is src/tasks/conll.ts).
 *
 * File format: one token per line, `WORD POS CHUNK` separated by whitespace (single spaces in the
 * distributed files); sentences are separated by one or more blank lines. Chunk tags are `O`, `B-TYPE`
 * (first token of a chunk) or `I-TYPE` (inside a chunk), with TYPE one of NP, VP, PP, ADVP, SBAR, ADJP,
 * PRT, CONJP, INTJ, LST, UCP. The training file has 8,936 sentences (211,727 tokens, 22 tags), the test
 * file 2,012 sentences (47,377 tokens).
 *
 * Input to be tagged may have only the `WORD POS` columns (see {@link ConllReadOptions.columns}).
 */
import { ArrayDataset } from '../core/dataset.js';
import { check, FormatError, InputError } from '../core/errors.js';
import type { FeatureDictionary } from './conll-features.js';
import type { SparseSequence } from '../models/sparse-chain.js';
import { readDataText, textLines } from './paths.js';

/** One sentence of a CoNLL file. */
export interface ConllSentence {
  /** The T words (first column). */
  words: string[];
  /** The T part-of-speech tags (second column). */
  pos: string[];
  /** The T chunk tags (third column), or null when the file has only word and POS columns. */
  chunks: string[] | null;
  /** 1-based line number of the first token in its file (token t is on line `line + t`). */
  line: number;
}

/** Options of {@link parseConll} / {@link loadConll}. */
export interface ConllReadOptions {
  /**
   * `3` (default): every token line must have exactly the three columns WORD POS CHUNK.
   * `'auto'`: lines have 2 columns (WORD POS, input to be tagged) or 3; the count of the first token line
   * is required of every line of the file (as conlleval requires), the third column is kept when present.
   */
  columns?: 3 | 'auto';
  /** The line number of the text's first line (a block cut out of a longer input). Default 1. */
  firstLine?: number;
}

const CHUNK_TAG_RE = /^(?:O|[BI]-\S+)$/;

/**
 * Most chunk types a file may use (CoNLL-2000 has 11): the chain model keeps K^2 transition weights and decodes in
 * O(K^2) per token for K = 2 x types + 1 tags, so memory would grow with the square of a file's distinct types
 * rather than with its size (20,000 types of a 400 KB file would ask for 13 GB).
 */
export const MAX_CHUNK_TYPES = 500;

/** Whether `tag` is a chunk tag of the IOB2 scheme used by CoNLL-2000: `O`, `B-TYPE` or `I-TYPE`. */
export function isChunkTag(tag: string): boolean {
  return CHUNK_TAG_RE.test(tag);
}

/**
 * Parses the text of a CoNLL file. `fileName` is used in error messages only.
 *
 * @throws FormatError naming the file and the 1-based line of a line with the wrong number of columns, a
 *   chunk tag that is not O / B-TYPE / I-TYPE, the chunk type past {@link MAX_CHUNK_TYPES}, or a file without any
 *   token.
 */
export function parseConll(text: string, fileName = '<conll>', options: ConllReadOptions = {}): ConllSentence[] {
  const mode = options.columns ?? 3;
  check(mode === 3 || mode === 'auto', `columns must be 3 or 'auto', got ${String(mode)}`);
  let columns = mode === 3 ? 3 : 0; // 0: not known yet
  const sentences: ConllSentence[] = [];
  let words: string[] = [];
  let pos: string[] = [];
  let chunks: string[] = [];
  let first = 0;
  const types = new Set<string>();
  const flush = () => {
    if (words.length === 0) return;
    sentences.push({ words, pos, chunks: columns === 3 ? chunks : null, line: first });
    words = [];
    pos = [];
    chunks = [];
  };
  let lineNo = 0;
  for (const next of textLines(text, options.firstLine)) {
    lineNo = next.lineNo;
    const line = next.line;
    const f = line.trim().split(/\s+/);
    if (f.length === 1 && f[0] === '') {
      flush();
      continue;
    }
    if (columns === 0) {
      if (f.length !== 2 && f.length !== 3) {
        throw new FormatError(`expected 2 (word, POS) or 3 (word, POS, chunk tag) whitespace-separated columns, found ${f.length}`, fileName, lineNo);
      }
      columns = f.length;
    } else if (f.length !== columns) {
      const what = columns === 3 ? '3 whitespace-separated columns (word, POS, chunk tag)' : '2 whitespace-separated columns (word, POS) like the lines above';
      throw new FormatError(`expected ${what}, found ${f.length}`, fileName, lineNo);
    }
    if (columns === 3 && !CHUNK_TAG_RE.test(f[2]!)) {
      throw new FormatError(`chunk tag ${JSON.stringify(f[2])} must be O, B-TYPE or I-TYPE`, fileName, lineNo);
    }
    if (columns === 3 && f[2] !== 'O' && !types.has(f[2]!.slice(2))) {
      types.add(f[2]!.slice(2));
      if (types.size > MAX_CHUNK_TYPES) throw new FormatError(`more than ${MAX_CHUNK_TYPES} chunk types (the chain model's transitions grow with their square)`, fileName, lineNo);
    }
    if (words.length === 0) first = lineNo;
    words.push(f[0]!);
    pos.push(f[1]!);
    if (columns === 3) chunks.push(f[2]!);
  }
  flush();
  if (sentences.length === 0) throw new FormatError('empty file: no tokens found', fileName, Math.max(lineNo, 1));
  return sentences;
}

/**
 * Loads a CoNLL file (plain or gzip-compressed, detected by magic bytes). See {@link parseConll}.
 *
 * @throws InputError when the file cannot be read, FormatError for malformed content (with file and line).
 */
export function loadConll(path: string, options: ConllReadOptions = {}): ConllSentence[] {
  return parseConll(readDataText(path), path, options);
}

/** Total number of tokens of `sentences`. */
export function conllTokenCount(sentences: readonly ConllSentence[]): number {
  let s = 0;
  for (const x of sentences) s += x.words.length;
  return s;
}

/** Options of {@link formatConll}. */
export interface ConllWriteOptions {
  /** Keep the gold chunk column of the input (if any) before the predicted one: `WORD POS GOLD PRED`, the conlleval input. Default true. */
  keepGold?: boolean;
  /** Column separator. Default one space. */
  separator?: string;
}

/**
 * Writes sentences in CoNLL format with a predicted chunk column appended: `WORD POS PRED` for input
 * without chunk tags, `WORD POS GOLD PRED` (the input format of conlleval) for input with them (unless
 * `keepGold: false`). One blank line after every sentence.
 */
export function formatConll(sentences: readonly ConllSentence[], predicted: readonly (readonly string[])[], options: ConllWriteOptions = {}): string {
  check(predicted.length === sentences.length, `got ${predicted.length} predicted sentences for ${sentences.length} sentences`);
  const sep = options.separator ?? ' ';
  const keepGold = options.keepGold ?? true;
  const parts: string[] = [];
  for (let i = 0; i < sentences.length; i++) {
    const s = sentences[i]!;
    const p = predicted[i]!;
    check(p.length === s.words.length, () => `sentence ${i + 1} has ${s.words.length} tokens but ${p.length} predicted tags`);
    for (let t = 0; t < p.length; t++) {
      let line = s.words[t]! + sep + s.pos[t]!;
      if (keepGold && s.chunks) line += sep + s.chunks[t]!;
      parts.push(line + sep + p[t]!);
    }
    parts.push('');
  }
  return parts.length === 0 ? '' : `${parts.join('\n')}\n`;
}

/**
 * The chunk tags of a task with their label ids: names sorted by code unit order (B-ADJP, B-ADVP, ...,
 * I-VP, O for CoNLL-2000), id = index. Built from the training set and saved with the model, so test
 * sentences and tagging map tags the same way.
 */
export class ChunkTagSet {
  private readonly ids: Map<string, number>;

  constructor(readonly names: readonly string[]) {
    check(names.length >= 1, 'a chunk tag set needs at least one tag');
    this.ids = new Map();
    names.forEach((name, k) => {
      check(isChunkTag(name), `chunk tag ${JSON.stringify(name)} must be O, B-TYPE or I-TYPE`);
      check(!this.ids.has(name), `chunk tag ${JSON.stringify(name)} appears twice`);
      this.ids.set(name, k);
    });
  }

  /**
   * The sorted set of the tags of labelled sentences, completed (unless `complete: false`) with both `B-T`
   * and `I-T` for every chunk type T seen, and `O`: a type's two tags belong to the label space even when
   * the training set lacks one of them (CoNLL-2000 train has B-LST but no I-LST, which test uses), so
   * K = 23 on CoNLL-2000 (22 tags occur in train).
   */
  static fromSentences(sentences: readonly ConllSentence[], options: { complete?: boolean } = {}): ChunkTagSet {
    const seen = new Set<string>();
    for (const s of sentences) {
      check(s.chunks !== null, `the sentence at line ${s.line} has no chunk tags`);
      for (const tag of s.chunks) seen.add(tag);
    }
    if (options.complete ?? true) {
      for (const tag of [...seen]) {
        if (tag === 'O') continue;
        const type = tag.slice(2);
        seen.add(`B-${type}`);
        seen.add(`I-${type}`);
      }
      seen.add('O');
    }
    return new ChunkTagSet([...seen].sort());
  }

  get size(): number {
    return this.names.length;
  }

  /** Label id of a tag, -1 when the tag is not in the set. */
  id(tag: string): number {
    return this.ids.get(tag) ?? -1;
  }

  /**
   * Label ids of a labelled sentence. A tag not in the set (a chunk type never seen in training) throws, or
   * with `unknown: 'mark'` becomes -1: a gold label no prediction can match (the Hamming loss counts it
   * wrong; chunk scores use the tag strings, see {@link encodeConll}).
   * @throws FormatError (with the token's line) for a tag not in the set, unless `unknown` is 'mark'.
   */
  encode(sentence: ConllSentence, fileName = '<conll>', unknown: 'error' | 'mark' = 'error'): Int32Array {
    const chunks = sentence.chunks;
    if (chunks === null) throw new FormatError('the sentence has no chunk tags', fileName, sentence.line);
    const y = new Int32Array(chunks.length);
    for (let t = 0; t < chunks.length; t++) {
      const k = this.ids.get(chunks[t]!);
      if (k !== undefined) y[t] = k;
      else if (unknown === 'mark') y[t] = -1;
      else throw new FormatError(`chunk tag ${JSON.stringify(chunks[t])} is not one of the model's ${this.names.length} tags (${this.names.join(' ')}): its chunk type never occurs in the training set`, fileName, sentence.line + t);
    }
    return y;
  }

  /** Tag names of label ids. */
  decode(y: ArrayLike<number>): string[] {
    const out = new Array<string>(y.length);
    for (let t = 0; t < y.length; t++) {
      const name = this.names[y[t]!];
      if (name === undefined) throw new InputError(`label ${y[t]} is outside 0..${this.names.length - 1}`);
      out[t] = name;
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------------
// The task behind `conll:PATH`.

/**
 * A labelled CoNLL set encoded for the model: attribute ids (CSR) per sentence, label ids, and the gold tag
 * strings (what chunk scores are computed from, so that tags outside the model's set still count as gold
 * chunks).
 */
export class ConllSet extends ArrayDataset<SparseSequence, Int32Array> {
  constructor(
    xs: readonly SparseSequence[],
    ys: readonly Int32Array[],
    readonly tags: readonly string[][],
    /** Tokens whose gold tag is not in the model's tag set (label -1). */
    readonly unknownTags: number,
  ) {
    super(xs, ys);
  }

  override slice(start: number, end = this.length): ConllSet {
    return new ConllSet(this.xs.slice(start, end), this.ys.slice(start, end), this.tags.slice(start, end), this.unknownTags);
  }
}

/**
 * Encodes sentences with a dictionary (attribute ids, CSR; unseen attributes dropped) and a tag set (label
 * ids). `unknown` decides what a tag outside the set does (see {@link ChunkTagSet.encode}); default 'error'.
 */
export function encodeConll(sentences: readonly ConllSentence[], dictionary: FeatureDictionary, tags: ChunkTagSet, fileName = '<conll>', unknown: 'error' | 'mark' = 'error'): ConllSet {
  const xs: SparseSequence[] = [];
  const ys: Int32Array[] = [];
  const gold: string[][] = [];
  let unknownTags = 0;
  for (const s of sentences) {
    xs.push(dictionary.encodeConll(s.words, s.pos));
    const y = tags.encode(s, fileName, unknown);
    for (const k of y) if (k < 0) unknownTags++;
    ys.push(y);
    gold.push(s.chunks!);
  }
  return new ConllSet(xs, ys, gold, unknownTags);
}
