/**
 * CoNLL chunking on the command line: `gapbcfw tag MODEL [FILE|-]` and the helpers `train`/`eval` use for
 * `conll:PATH` data (chunk F1 next to the papers' test error).
 */
import { writeOutput } from '../io/output.js';
import { gunzipSync } from 'node:zlib';
import type { ParseArgsConfig } from 'node:util';
import { FormatError, InputError } from '../core/errors.js';
import { meanLoss } from '../core/problem.js';
import { ChunkTagSet, formatConll, parseConll, parseSparseChainSpec, type ConllSentence, type SparseChainSpec } from '../data/conll.js';
import { isGzip, readDataFile } from '../data/paths.js';
import { chunkScores, chunkScoresFromIds, formatChunkReport, type ChunkScores } from '../eval/chunks.js';
import { readModelFile } from '../io/model-file.js';
import type { DecodeBackend } from '../models/chain.js';
import { FeatureDictionary, conllAttributes } from '../models/conll-features.js';
import { SparseChainModel, type SparseSequence } from '../models/sparse-chain.js';
import { UsageError, parse, type Io } from './common.js';

export { loadConllTask, encodeConll, type ConllSet, type ConllTask, type ConllTaskOptions, type SparseChainSpec } from '../data/conll.js';

/** Streams of `tag`: stdin is read when no input file (or `-`) is given. */
export interface TagIo extends Io {
  stdin?: NodeJS.ReadableStream;
}

export const TAG_USAGE = `Usage: gapbcfw tag MODEL [FILE|-] [options]

Tags a CoNLL file (columns WORD POS, or WORD POS CHUNK) with a model trained on conll: data and writes it
with the predicted chunk column appended: WORD POS PRED, or WORD POS GOLD PRED (the conlleval input) when
the input has chunk tags; then chunk F1 goes to stderr. Reads stdin when FILE is - or absent.

Options:
  --output FILE      write the tagged file here instead of stdout
  --no-gold          drop the input's chunk column from the output (WORD POS PRED)
  --backend native|js  Viterbi implementation (default native)
  --quiet            no summary on stderr`;

const TAG_OPTIONS = {
  output: { type: 'string', short: 'o' },
  'no-gold': { type: 'boolean' },
  backend: { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/** A sparse-chain model read from a model file. */
export interface LoadedSparseChain {
  spec: SparseChainSpec;
  w: Float64Array;
  model: SparseChainModel;
  dictionary: FeatureDictionary;
  tags: ChunkTagSet;
}

/**
 * Reads a model file written by `gapbcfw train conll:...` (format `gapbcfw-model`, spec kind `sparse-chain`).
 * @throws FormatError for another kind of file, a spec that is not sparse-chain or a w of the wrong length.
 */
export function loadSparseChainModel(path: string, backend: DecodeBackend = 'native'): LoadedSparseChain {
  const { meta, arrays } = readModelFile(path);
  if (meta.format !== 'gapbcfw-model') throw new FormatError(`not a gapbcfw model (format '${String(meta.format)}')`, path);
  const kind = (meta.spec as { kind?: unknown } | undefined)?.kind;
  if (kind !== 'sparse-chain') throw new InputError(`${path}: a ${String(kind)} model cannot tag CoNLL data (train one on conll: data)`);
  const spec = parseSparseChainSpec(meta.spec, path);
  const model = new SparseChainModel({ numFeatures: spec.numFeatures, numLabels: spec.numLabels, backend });
  const w = arrays.w;
  if (!(w instanceof Float64Array)) throw new FormatError("model file has no f64 array 'w'", path);
  if (w.length !== model.dim) throw new FormatError(`w has length ${w.length}, the sparse-chain model needs ${model.dim}`, path);
  const bad = w.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) throw new FormatError(`w[${bad}] is ${w[bad]}: a model's weights must be finite`, path);
  return { spec, w, model, dictionary: FeatureDictionary.fromJSON(spec.features), tags: new ChunkTagSet(spec.labelNames) };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(parts);
}

/** Predicted tag names of sentences (features through the model's dictionary; unseen attributes ignored). */
export function tagSentences(m: LoadedSparseChain, sentences: readonly ConllSentence[]): string[][] {
  return sentences.map((s) => m.tags.decode(m.model.decode(m.w, m.dictionary.encode(conllAttributes(s.words, s.pos)))));
}

/** `gapbcfw tag MODEL [FILE|-]`; returns the exit code (throws InputError on bad usage or input, as the other commands). */
export async function runTag(args: string[], io: TagIo): Promise<number> {
  const { values: v, positionals } = parse(args, TAG_OPTIONS);
  if (v.help) {
    io.stdout.write(`${TAG_USAGE}\n`);
    return 0;
  }
  if (positionals.length < 1 || positionals.length > 2) throw new UsageError('tag takes MODEL [FILE|-], e.g. gapbcfw tag chunker.gbm < test.txt');
  const backend = v.backend ?? 'native';
  if (backend !== 'native' && backend !== 'js') throw new UsageError(`--backend must be native or js, got '${backend}'`);
  const m = loadSparseChainModel(positionals[0]!, backend);
  const source = positionals[1] ?? '-';
  let bytes: Buffer;
  if (source === '-') {
    bytes = await readAll(io.stdin ?? process.stdin);
    if (isGzip(bytes)) bytes = gunzipSync(bytes);
  } else bytes = readDataFile(source);
  const name = source === '-' ? '<stdin>' : source;
  const sentences = parseConll(bytes.toString('utf8'), name, { columns: 'auto' });
  const t0 = performance.now();
  const predicted = tagSentences(m, sentences);
  const seconds = (performance.now() - t0) / 1000;
  const text = formatConll(sentences, predicted, { keepGold: !(v['no-gold'] ?? false) });
  if (v.output !== undefined) writeOutput(v.output, text, { stdout: io.stdout });
  else io.stdout.write(text);
  if (!v.quiet) {
    let tokens = 0;
    for (const s of sentences) tokens += s.words.length;
    io.stderr.write(`tagged ${sentences.length} sentences (${tokens} tokens) in ${seconds.toFixed(2)} s\n`);
    if (sentences.every((s) => s.chunks !== null)) {
      io.stderr.write(formatChunkReport(chunkScores(sentences.map((s) => s.chunks!), predicted)));
    }
  }
  return 0;
}

/** Chunk metrics of a model on a labelled set, in the CLI's JSON keys. */
export interface ConllMetrics {
  /** Chunk F1 (conlleval rules). */
  f1: number;
  precision: number;
  recall: number;
  /** Token accuracy. */
  accuracy: number;
  /** The papers' test error: mean per-sentence normalised Hamming loss. */
  testError: number;
}

/**
 * Predicts every sequence of a set and scores it: chunk precision/recall/F1, token accuracy and the papers'
 * error (mean normalised Hamming). `labelNames` are the model's tags (spec.labelNames). With `set.tags`
 * (as {@link loadConllTask} returns) chunks are scored against those gold strings.
 */
export function conllMetrics(
  model: SparseChainModel,
  w: Float64Array,
  set: { xs: readonly SparseSequence[]; ys: readonly Int32Array[]; tags?: readonly (readonly string[])[] },
  labelNames: readonly string[],
): ConllMetrics & { scores: ChunkScores } {
  const predicted = set.xs.map((x) => model.decode(w, x));
  // Gold tag strings when the set carries them (tags outside the model's set are label -1 in ys).
  const scores = set.tags
    ? chunkScores(set.tags, predicted.map((y) => Array.from(y, (k) => labelNames[k]!)))
    : chunkScoresFromIds(set.ys, predicted, labelNames);
  let loss = 0;
  for (let i = 0; i < predicted.length; i++) loss += model.loss(set.ys[i]!, predicted[i]!);
  return { f1: scores.f1, precision: scores.precision, recall: scores.recall, accuracy: scores.tokenAccuracy, testError: set.xs.length > 0 ? loss / set.xs.length : 0, scores };
}

/** The papers' test error alone (mean normalised Hamming), for the `evaluate` hook of training. */
export function conllTestError(model: SparseChainModel, w: Float64Array, set: { xs: readonly SparseSequence[]; ys: readonly Int32Array[] }): number {
  return meanLoss(model, w, set.xs, set.ys);
}
