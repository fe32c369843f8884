/**
 * `alignment:DIR`: the hand-aligned Hansards pairs (word_alignment_hansards/: test/ and trial/ with sure and possible
 * links, train_sample/ unlabelled) for word alignment as bipartite matching (Hungarian oracle, asymmetric Hamming
 * loss). Contiguous cross-validation folds (`--folds F --fold K`, or `--all`); the Dice statistics of the features
 * are counted over the unlabelled sample and the training pairs only, and that corpus is kept in the model file
 * so new pairs get the same features. Metrics: AER, precision, recall; baseline: identical-or-Dice links with the
 * threshold tuned on the training pairs. Predictions: one line of links per pair; raw `english ||| french` lines
 * (stdin or a file) are aligned as they stream in.
 * @module
 */
import { FormatError, InputError } from '../core/errors.js';
import { evaluateAlignments, foldSplit, foldStats, matchingData, parseParallelPairs, readHansards, readParallelSample, tunedBaseline, type AlignedPair } from '../data/alignment.js';
import { arrayDataset } from '../core/dataset.js';
import { ALIGNMENT_FEATURE_NAMES, AlignmentFeaturizer, CooccurrenceStats, diceBaseline, type LossNormaliser } from '../models/matching.js';
import { flagValue, numberValue, stringValue, writeText } from './common.js';
import type { MatchingSpec } from './model-kinds.js';
import type { OptionValues, RawPrediction, Task, TaskFields } from './types.js';

/** The task fields of an alignment model (arrays corpusE / corpusF hold the corpus, one sentence per line). */
interface AlignmentFields {
  /** Sentence pairs of the corpus its Dice statistics are counted from. */
  corpusPairs: number;
  /** The cross-validation fold held out in training, when there was one. */
  heldOut?: { folds: number; fold: number };
  /** Threshold of the Dice baseline, tuned on the training pairs. */
  baselineThreshold?: number;
}

export const alignmentTask: Task = {
  kind: 'alignment',
  data: 'alignment:DIR',
  summary: 'Hansards gold alignments (word_alignment_hansards/): --folds F --fold K (default 5, 0) or --all',
  predictions: 'text',
  options: [
    { name: 'folds', type: 'integer', value: 'F', min: 2, max: 1000, help: 'contiguous cross-validation folds over the labelled pairs', default: '5', tasks: ['alignment'] },
    { name: 'fold', type: 'integer', value: 'K', min: 0, max: 999, help: 'the held-out fold (trained on the others)', default: '0, or the model\'s', tasks: ['alignment'] },
    { name: 'all', type: 'flag', help: 'train on every labelled pair (no held-out fold)', use: 'train', tasks: ['alignment'] },
    { name: 'cost-fp', type: 'number', value: 'X', min: 0, max: 1e6, help: 'loss of a proposed link outside the target matching', default: '1', use: 'train', tasks: ['alignment'] },
    { name: 'cost-fn', type: 'number', value: 'X', min: 0, max: 1e6, help: 'loss of a missed target link', default: '3', use: 'train', tasks: ['alignment'] },
    { name: 'normaliser', type: 'choice', value: 'N', choices: ['links', 'rows', 'none'], help: 'divide the loss by the target links, the English words, or nothing', default: 'links', use: 'train', tasks: ['alignment'] },
    { name: 'no-sample', type: 'flag', help: 'count Dice statistics over the training pairs only (not the unlabelled sample)', use: 'train', tasks: ['alignment'] },
    { name: 'order', type: 'choice', value: 'O', choices: ['ef', 'fe'], help: "links as 'english-french' (ef) or 'french-english' (fe, the NAACL files' order)", default: 'ef', use: 'predict', tasks: ['alignment'] },
    { name: 'words', type: 'flag', help: "print 'english=french' word pairs instead of indices", use: 'predict', tasks: ['alignment'] },
  ],
  async load(dir, o) {
    const v = o.values;
    const pairs = readHansards(dir);
    const saved = o.model ? (o.model.fields.meta as unknown as AlignmentFields) : undefined;
    if (flagValue(v, 'all') && (v?.fold !== undefined || v?.folds !== undefined)) throw new InputError('--all trains on every pair: --fold and --folds do not apply');
    const heldOut = flagValue(v, 'all') ? undefined : foldOf(v, saved?.heldOut);
    const split = heldOut ? foldSplit(pairs, heldOut.folds, heldOut.fold) : { train: pairs, test: [] as AlignedPair[] };
    let stats: CooccurrenceStats;
    let spec: MatchingSpec;
    let fields: TaskFields;
    if (o.model) {
      stats = new CooccurrenceStats(decodeCorpus(o.model.fields, dir));
      spec = o.model.spec as MatchingSpec;
      fields = o.model.fields;
    } else {
      const sample = flagValue(v, 'no-sample') ? [] : readParallelSample(dir);
      stats = foldStats(sample, split.train);
      const corpus = [...sample, ...split.train.map((p) => [p.e, p.f] as [string[], string[]])];
      spec = {
        kind: 'matching',
        numFeatures: ALIGNMENT_FEATURE_NAMES.length,
        features: [...ALIGNMENT_FEATURE_NAMES],
        costFalsePositive: numberValue(v, 'cost-fp') ?? 1,
        costFalseNegative: numberValue(v, 'cost-fn') ?? 3,
        normaliser: (stringValue(v, 'normaliser') ?? 'links') as LossNormaliser,
      };
      fields = alignmentFields(corpus, { ...(heldOut ? { heldOut } : {}), baselineThreshold: tunedBaseline(stats, split.train).threshold });
    }
    const featurizer = new AlignmentFeaturizer(stats);
    const wanted = new Set(o.parts ?? ['train', 'test']);
    const parts = {
      train: wanted.has('train') ? split.train.slice(0, o.limit ?? Infinity) : [],
      test: wanted.has('test') ? split.test.slice(0, o.testLimit ?? Infinity) : [],
    };
    const set = (list: AlignedPair[]) => (list.length > 0 ? ((d) => arrayDataset(d.xs, d.ys))(matchingData(list, featurizer)) : arrayDataset([], []));
    const train = set(parts.train);
    const test = set(parts.test);
    const trained = o.model ? (fields.meta as unknown as AlignmentFields).heldOut : undefined;
    const note = o.model && heldOut && (trained?.folds !== heldOut.folds || trained.fold !== heldOut.fold) ? ` (note: fold ${heldOut.fold} of ${heldOut.folds} was not held out when this model was trained)` : '';
    const threshold = (fields.meta as unknown as AlignmentFields).baselineThreshold;
    return {
      task: 'alignment',
      spec,
      train,
      test: test.length > 0 ? test : undefined,
      description: `hansards alignment${heldOut ? ` (fold ${heldOut.fold} of ${heldOut.folds} held out)` : ' (all pairs)'}: ${split.train.length} train / ${split.test.length} test pairs, Dice over ${stats.numSentences} sentence pairs${note}`,
      fields,
      metrics: (part, predictions) => evaluateAlignments(parts[part], (_p, i) => predictions[i] as Int32Array),
      meanLoss: 'loss',
      baseline: (part): Record<string, number> => {
        if (threshold === undefined || parts[part].length === 0) return {};
        const b = evaluateAlignments(parts[part], (p) => diceBaseline(stats, p.e, p.f, threshold));
        return { baselineAer: b.aer, baselinePrecision: b.precision, baselineRecall: b.recall };
      },
      writer: (part, target) => {
        const format = linkFormat(target.values);
        return {
          write: async (i, y) => {
            const p = parts[part][i]!;
            if (target.text) await writeText(target.text, `${format(p.e, p.f, y as Int32Array)}\n`);
          },
          finish: async () => ({}),
        };
      },
    };
  },
  raw: (model, w, build) => {
    const aligner = { featurizer: new AlignmentFeaturizer(new CooccurrenceStats(decodeCorpus(model.fields, 'the model'))), model: build() };
    const run: RawPrediction['run'] = async (lines, target, signal) => {
      const format = linkFormat(target.values);
      let pairs = 0;
      let links = 0;
      let lineNo = 0;
      for await (const line of lines) {
        if (signal?.aborted) break;
        const [e, f] = parseParallelPairs(`${line}\n`, target.name, ++lineNo)[0]!;
        const y = aligner.model.decode(w, aligner.featurizer.featurize(e, f)) as Int32Array;
        pairs++;
        for (const k of y) if (k >= 0) links++;
        if (target.text) await writeText(target.text, `${format(e, f, y)}\n`);
      }
      return { pairs, links };
    };
    return { run };
  },
  checkFields(f, file) {
    const m = f.meta as Partial<AlignmentFields>;
    if (!Number.isInteger(m.corpusPairs) || !(f.arrays.corpusE instanceof Uint8Array) || !(f.arrays.corpusF instanceof Uint8Array)) {
      throw new FormatError('alignment model fields need corpusPairs and the corpus arrays corpusE, corpusF', file);
    }
    decodeCorpus(f, file);
  },
};

/** `--folds F --fold K`, defaulting to the model's held-out fold (when F agrees) and then to 5 and 0. */
function foldOf(v: OptionValues | undefined, fallback?: { folds: number; fold: number }): { folds: number; fold: number } {
  const folds = numberValue(v, 'folds') ?? fallback?.folds ?? 5;
  const fold = numberValue(v, 'fold') ?? (fallback && fallback.folds === folds ? fallback.fold : 0);
  if (fold >= folds) throw new InputError(`--fold must be in 0..${folds - 1}, got ${fold}`);
  return { folds, fold };
}

/** A pair's links as text: `j-k` (ef), `k-j` (fe) or `english=french` words. */
function linkFormat(v: OptionValues): (e: readonly string[], f: readonly string[], y: Int32Array) => string {
  const order = stringValue(v, 'order') ?? 'ef';
  const words = flagValue(v, 'words');
  return (e, f, y) => {
    const out: string[] = [];
    y.forEach((k, j) => {
      if (k < 0) return;
      out.push(words ? `${e[j]}=${f[k]}` : order === 'ef' ? `${j}-${k}` : `${k}-${j}`);
    });
    return out.join(' ');
  };
}

/**
 * The task fields of an alignment model whose Dice statistics are counted from `corpus` (sentence pairs of
 * tokens): the corpus as two byte arrays (one sentence per line, tokens separated by spaces), its size, and
 * optionally the held-out fold and the tuned Dice baseline's threshold.
 */
export function alignmentFields(corpus: readonly (readonly [string[], string[]])[], extra: { heldOut?: { folds: number; fold: number }; baselineThreshold?: number } = {}): TaskFields {
  const side = (s: 0 | 1) => new TextEncoder().encode(corpus.map((p) => p[s].join(' ')).join('\n'));
  const meta: AlignmentFields = { corpusPairs: corpus.length, ...extra };
  return { meta: { ...meta }, arrays: { corpusE: side(0), corpusF: side(1) } };
}

/** The corpus of a model's task fields. @throws FormatError naming `file` when the arrays disagree with corpusPairs. */
function decodeCorpus(f: TaskFields, file: string): [string[], string[]][] {
  const count = Number((f.meta as Partial<AlignmentFields>).corpusPairs);
  if (count === 0) return [];
  const dec = new TextDecoder();
  const es = dec.decode(f.arrays.corpusE).split('\n');
  const fs = dec.decode(f.arrays.corpusF).split('\n');
  if (es.length !== count || fs.length !== count) throw new FormatError(`corpus has ${es.length}/${fs.length} lines, header says ${count}`, file);
  return es.map((e, i) => [e.split(' '), fs[i]!.split(' ')]);
}
