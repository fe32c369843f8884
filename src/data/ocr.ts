/**
 * Loader for Taskar, Guestrin & Koller's (2003) OCR data set, `letter.data` / `letter.data.gz`.
 *
 * File format: one letter per line, tab separated, a trailing tab at the end of each line:
 *
 *   id  letter  next_id  word_id  position  fold  p_0_0 ... p_15_7
 *
 * `letter` is a-z (the label), `next_id` the id of the next letter of the word or -1 for the last
 * letter, `position` is 1-based within the word, `fold` is 0-9, and the 128 values 0/1 are a 16x8
 * binary image, row-major. Words are the runs of consecutive lines linked by `next_id`.
 *
 * Standard splits (gapBCFW `loadOCRData.m`): `small` ("ocr", OCR-small) trains on fold 0 (626 words)
 * and tests on folds 1-9 (6,251 words); `large` ("ocr2", OCR-large) is the reverse.
 */
import { FormatError, InputError } from '../core/errors.js';
import type { SequenceDataset, SequenceExample } from '../core/data.js';
import { readDataText, textLines } from './paths.js';

/** Number of pixels of one letter image (16 rows x 8 columns). */
export const OCR_PIXELS = 128;
/** Image height (rows). */
export const OCR_HEIGHT = 16;
/** Image width (columns). */
export const OCR_WIDTH = 8;
/** Number of labels (a-z). */
export const OCR_NUM_LABELS = 26;
/** Number of cross-validation folds in the file. */
export const OCR_NUM_FOLDS = 10;
/** Label names 'a'..'z' (label k is `String.fromCharCode(97 + k)`). */
export const OCR_LABEL_NAMES: readonly string[] = Array.from({ length: 26 }, (_, k) => String.fromCharCode(97 + k));

const NUM_FIELDS = 6 + OCR_PIXELS;

/** One handwritten word. */
export interface OcrWord {
  /** The file's `word_id`. */
  id: number;
  /** Cross-validation fold, 0..9. */
  fold: number;
  /** Letters, 0..25 for a..z; length T. */
  y: Int32Array;
  /** T images of 128 pixels (0/1), letter t at `pixels[t*128 .. t*128+127]`, each 16x8 row-major. */
  pixels: Uint8Array;
}

/** The words of an OCR file, in file order. */
export interface OcrData {
  words: OcrWord[];
}

/** A standard split name: `small`, `large`, `all`, or `fold:K` (fold K tests, the others train). */
export type OcrSplitName = 'small' | 'large' | 'all' | `fold:${number}`;

/** Options of {@link ocrToSequences}. */
export interface OcrSequenceOptions {
  /** Append a constant feature 1 to each letter (D = 129 instead of 128). Default true. */
  bias?: boolean;
}

const INT_RE = /^-?\d+$/;

/**
 * Loads an OCR file (plain or gzip-compressed, detected by magic bytes).
 *
 * @throws FormatError naming the file and the 1-based line for any malformed line, a broken
 *   `next_id` chain, inconsistent word ids/folds/positions within a word, an empty file, a word not
 *   terminated at end of file, or corrupt gzip data. InputError when the file cannot be read.
 */
export function loadOcr(path: string): OcrData {
  const text = readDataText(path, 'latin1');
  // A UTF-8 byte order mark (files saved by some editors) is not part of the first field.
  return parseOcr(text.startsWith('\xef\xbb\xbf') ? text.slice(3) : text, path);
}

/**
 * Parses the text of an OCR file. `fileName` is used in error messages only.
 * See {@link loadOcr} for the errors thrown.
 */
export function parseOcr(text: string, fileName = '<ocr>'): OcrData {
  const words: OcrWord[] = [];
  // Letters of the word being read.
  let labels: number[] = [];
  let pix: Uint8Array[] = [];
  let wordId = 0;
  let fold = 0;
  let wordStartLine = 0;
  let expectedNext = -1; // next_id of the previous line; -1 when the previous line ended a word
  let prevLine = 0;
  let lineNo = 0;
  for (const next of textLines(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)) {
    lineNo = next.lineNo;
    const line = next.line;
    if (line.trim() === '') continue;
    const err = (msg: string): FormatError => new FormatError(msg, fileName, lineNo);

    const f = line.split('\t');
    if (f.length > 1 && f[f.length - 1] === '') f.pop(); // the trailing tab
    if (f.length !== NUM_FIELDS) {
      throw err(`expected ${NUM_FIELDS} tab-separated fields (id, letter, next_id, word_id, position, fold, 128 pixels), found ${f.length}`);
    }
    const int = (k: number, name: string): number => {
      const s = f[k]!;
      if (!INT_RE.test(s)) throw err(`field ${k + 1} (${name}) is not an integer: ${JSON.stringify(s)}`);
      const v = Number(s);
      if (!Number.isSafeInteger(v)) throw err(`field ${k + 1} (${name}) is out of range: ${s}`);
      return v;
    };
    const id = int(0, 'id');
    const letter = f[1]!;
    if (letter.length !== 1 || letter < 'a' || letter > 'z') {
      throw err(`field 2 (letter) must be one letter a-z, found ${JSON.stringify(letter)}`);
    }
    const nextId = int(2, 'next_id');
    const wid = int(3, 'word_id');
    const position = int(4, 'position');
    const fd = int(5, 'fold');
    if (fd < 0 || fd >= OCR_NUM_FOLDS) throw err(`field 6 (fold) must be 0..${OCR_NUM_FOLDS - 1}, found ${fd}`);
    if (nextId !== -1 && nextId < 0) throw err(`field 3 (next_id) must be -1 or a letter id, found ${nextId}`);

    const img = new Uint8Array(OCR_PIXELS);
    for (let p = 0; p < OCR_PIXELS; p++) {
      const s = f[6 + p]!;
      if (s === '0') continue;
      if (s === '1') img[p] = 1;
      else throw err(`pixel ${p} (field ${7 + p}) must be 0 or 1, found ${JSON.stringify(s)}`);
    }

    if (expectedNext !== -1) {
      // Continuing a word: this line must be the letter the previous line pointed to.
      if (id !== expectedNext) {
        throw err(`broken word chain: line ${prevLine} has next_id ${expectedNext} but this line has id ${id}`);
      }
      if (wid !== wordId) throw err(`word_id ${wid} differs from word_id ${wordId} of the word started at line ${wordStartLine}`);
      if (fd !== fold) throw err(`fold ${fd} differs from fold ${fold} of the word started at line ${wordStartLine}`);
    } else {
      wordId = wid;
      fold = fd;
      wordStartLine = lineNo;
    }
    if (position !== labels.length + 1) {
      throw err(`field 5 (position) is ${position} but this is letter ${labels.length + 1} of the word started at line ${wordStartLine}`);
    }
    if (nextId === id) throw err(`next_id ${nextId} points to the letter itself`);
    labels.push(letter.charCodeAt(0) - 97);
    pix.push(img);
    prevLine = lineNo;
    expectedNext = nextId;
    if (nextId === -1) {
      const T = labels.length;
      const pixels = new Uint8Array(T * OCR_PIXELS);
      for (let t = 0; t < T; t++) pixels.set(pix[t]!, t * OCR_PIXELS);
      words.push({ id: wordId, fold, y: Int32Array.from(labels), pixels });
      labels = [];
      pix = [];
    }
  }
  if (prevLine === 0) throw new FormatError('empty file: no letters found', fileName, Math.max(lineNo, 1));
  if (expectedNext !== -1) {
    throw new FormatError(
      `unexpected end of file: the word started at line ${wordStartLine} is not terminated (next_id ${expectedNext} on the last line, expected -1)`,
      fileName,
      prevLine,
    );
  }
  return { words };
}

/** Total number of letters in `words`. */
export function ocrLetterCount(words: readonly OcrWord[]): number {
  let s = 0;
  for (const w of words) s += w.y.length;
  return s;
}

/**
 * Converts words to sequences: feature vector of a letter = its 128 pixels as 0/1 doubles, followed by a
 * constant 1 when `bias` (default true), so D = 129. Labels 0..25, labelNames 'a'..'z', id = word id.
 */
export function ocrToSequences(words: readonly OcrWord[], options: OcrSequenceOptions = {}): SequenceDataset {
  const bias = options.bias ?? true;
  const D = OCR_PIXELS + (bias ? 1 : 0);
  const examples: SequenceExample[] = words.map((w) => {
    const T = w.y.length;
    if (w.pixels.length !== T * OCR_PIXELS) {
      throw new InputError(`OCR word ${w.id}: pixels has length ${w.pixels.length}, expected ${T} x ${OCR_PIXELS}`);
    }
    const x = new Float64Array(T * D);
    for (let t = 0; t < T; t++) {
      const src = t * OCR_PIXELS;
      const dst = t * D;
      for (let p = 0; p < OCR_PIXELS; p++) x[dst + p] = w.pixels[src + p]!;
      if (bias) x[dst + OCR_PIXELS] = 1;
    }
    return { x, y: Int32Array.from(w.y), id: w.id };
  });
  return { examples, numFeatures: D, numLabels: OCR_NUM_LABELS, labelNames: [...OCR_LABEL_NAMES] };
}

/**
 * Splits words into train and test sets, keeping file order:
 * - `small`: train = fold 0, test = folds 1-9 (OCR-small; 626 / 6,251 words on the full file);
 * - `large`: train = folds 1-9, test = fold 0 (OCR-large);
 * - `all`: train = every word, test = [];
 * - `fold:K` (K in 0..9): test = fold K, train = the other folds.
 *
 * @throws InputError on an unknown split name.
 */
export function ocrSplit(data: OcrData | readonly OcrWord[], split: OcrSplitName | (string & {})): { train: OcrWord[]; test: OcrWord[] } {
  const words: readonly OcrWord[] = Array.isArray(data) ? data : (data as OcrData).words;
  let testFold: number;
  let trainIsTestFold = false;
  if (split === 'all') return { train: [...words], test: [] };
  if (split === 'small') {
    testFold = 0;
    trainIsTestFold = true;
  } else if (split === 'large') {
    testFold = 0;
  } else {
    const m = /^fold:(\d)$/.exec(split);
    if (!m) throw new InputError(`unknown OCR split ${JSON.stringify(split)} (expected small, large, all or fold:K with K in 0..9)`);
    testFold = Number(m[1]);
  }
  const inFold: OcrWord[] = [];
  const rest: OcrWord[] = [];
  for (const w of words) (w.fold === testFold ? inFold : rest).push(w);
  return trainIsTestFold ? { train: inFold, test: rest } : { train: rest, test: inFold };
}
