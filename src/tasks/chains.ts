/**
 * What every chain task shares (ocr, conll, seq, conll-columns): the options that constrain a chain and weigh its
 * loss (kept in the model file's spec), the sequence metrics and their tables, and the decoding outputs of
 * `predict` (n-best lists, max-marginals, per-sequence scores) as labels, JSON Lines or TSV.
 * @module
 */
import { InputError } from '../core/errors.js';
import type { ScoredLabelling } from '../models/chain-base.js';
import { chainRules, checkLabelling, parseLabelWeights, TAG_SCHEMES, type ChainRulesSpec, type TagScheme } from '../models/chain-rules.js';
import { flatSequenceMetrics, sequenceScores, sequenceTables } from '../eval/sequences.js';
import { stringValue } from './common.js';
import type { ChainSpec, SparseChainSpec } from './model-kinds.js';
import type { DataKind, OptionSpec, OptionValues, TaskData } from './types.js';

/** The data kinds whose model is a chain. */
export const CHAIN_KINDS: readonly DataKind[] = ['ocr', 'conll', 'seq', 'conll-columns'];

/** `--constraints`, `--forbid`, `--label-weights`: how a chain is trained and decoded (kept in the model file). */
export const CHAIN_RULE_OPTIONS: readonly OptionSpec[] = [
  { name: 'constraints', type: 'choice', value: 'SCHEME', choices: TAG_SCHEMES, help: 'forbid the transitions a tag scheme rules out (bio = iob2: I-X only after B-X or I-X), in training and decoding', use: 'train', tasks: CHAIN_KINDS },
  { name: 'forbid', type: 'string', value: 'A>B,...', help: 'forbidden transitions between labels, in training and decoding', use: 'train', tasks: CHAIN_KINDS },
  { name: 'label-weights', type: 'string', value: 'L=W,...|balanced', help: "class-weighted Hamming loss: the cost of a mistake on a token of label L (others 1); balanced = N / (K' N_L)", use: 'train', tasks: CHAIN_KINDS },
];

type ChainLikeSpec = ChainSpec | SparseChainSpec;

/**
 * The data with the chain rules of the options in its spec (unchanged without them). Every training labelling must
 * obey the constraints (else an InputError naming the example and the position).
 */
export function withChainRules(data: TaskData, values: OptionValues | undefined): TaskData {
  const constraints = stringValue(values, 'constraints') as TagScheme | undefined;
  const forbid = stringValue(values, 'forbid');
  const weights = stringValue(values, 'label-weights');
  if (constraints === undefined && forbid === undefined && weights === undefined) return data;
  const spec = data.spec as ChainLikeSpec;
  if (spec.kind !== 'chain' && spec.kind !== 'sparse-chain') throw new InputError(`--constraints, --forbid and --label-weights apply to chain models, not ${(spec as { kind: string }).kind}`);
  const names = spec.labelNames;
  const train = data.train;
  const counts = new Float64Array(names.length);
  for (let i = 0; i < train.length; i++) for (const k of train.label(i) as Int32Array) if (k >= 0) counts[k]!++;
  const rules: ChainRulesSpec = {
    ...(constraints === undefined ? {} : { constraints }),
    ...(forbid === undefined ? {} : { forbid: forbid.split(',') }),
    ...(weights === undefined ? {} : { labelWeights: parseLabelWeights(weights, names, counts) }),
  };
  const masks = chainRules(names, rules);
  for (let i = 0; i < train.length; i++) {
    const broken = checkLabelling(masks, train.label(i) as Int32Array, names);
    if (broken) throw new InputError(`training example ${i + 1}, token ${broken.position + 1}: ${broken.why} (--constraints/--forbid); fix the data or drop the constraint`);
  }
  return { ...data, spec: { ...spec, rules } };
}

/** Label names of label ids (-1, a gold label the model does not know, as `?`). */
export function namesOf(labelNames: readonly string[], y: ArrayLike<number>): string[] {
  return Array.from(y, (k) => labelNames[k] ?? '?');
}

/** The sequence metrics and tables of predictions against gold label names. */
export function chainScores(gold: readonly (readonly string[])[], predicted: readonly Int32Array[], labelNames: readonly string[]) {
  const s = sequenceScores(gold, predicted.map((y) => namesOf(labelNames, y)), labelNames);
  return { metrics: flatSequenceMetrics(s), tables: sequenceTables(s) };
}

/** How `predict` writes chain predictions. */
export interface ChainOutput {
  format: 'labels' | 'jsonl' | 'tsv';
  /** The K best labellings of each sequence. */
  nbest?: number;
  /** Max-marginals of each position and label. */
  marginals: boolean;
  /** Each labelling's score. */
  scores: boolean;
}

/** `predict`'s decoding options: --nbest, --marginals, --scores, --format. */
export const CHAIN_OUTPUT_OPTIONS = [
  { name: 'nbest', type: 'integer', value: 'K', min: 1, max: 1e6, help: 'chain models: the K best labellings of every sequence with their scores (exact K-best Viterbi)', group: 'Chain decoding' },
  { name: 'marginals', type: 'flag', help: 'chain models: max-marginals, the best score of a labelling with each label at each position (JSON Lines or TSV)', group: 'Chain decoding' },
  { name: 'scores', type: 'flag', help: 'chain models: each labelling\'s score (an @score line before it in the labels format)', group: 'Chain decoding' },
  { name: 'format', type: 'choice', value: 'F', choices: ['labels', 'jsonl', 'tsv'], help: 'chain models: one label per line (blank line between sequences), one JSON object per sequence, or TSV rows per token', default: 'the task\'s own; jsonl with --marginals', group: 'Chain decoding' },
] as const satisfies readonly (OptionSpec & { group: string })[];

/** The chain output the options ask for, or undefined for the task's own output. */
export function chainOutputOf(values: OptionValues): ChainOutput | undefined {
  const format = stringValue(values, 'format') as ChainOutput['format'] | undefined;
  const nbest = typeof values.nbest === 'number' ? values.nbest : undefined;
  const marginals = values.marginals === true;
  const scores = values.scores === true;
  if (format === undefined && nbest === undefined && !marginals && !scores) return undefined;
  const f = format ?? (marginals ? 'jsonl' : 'labels');
  if (marginals && f === 'labels') throw new InputError('--marginals are written as --format jsonl or tsv');
  return { format: f, nbest, marginals, scores };
}

/** What a chain model decodes for one sequence. */
export interface ChainDecoder {
  decode(w: Float64Array, x: unknown): unknown;
  nbest(w: Float64Array, x: unknown, count: number): ScoredLabelling[];
  maxMarginals(w: Float64Array, x: unknown): Float64Array;
  readonly numLabels: number;
}

/** Whether a model decodes chains (has n-best lists and max-marginals). */
export function isChainDecoder(model: unknown): model is ChainDecoder {
  return typeof (model as ChainDecoder).nbest === 'function' && typeof (model as ChainDecoder).maxMarginals === 'function';
}

const num = (x: number) => (Number.isFinite(x) ? x : null);

/**
 * The text of one sequence's prediction: the best labelling (or the `nbest` best), with scores and max-marginals as
 * asked. Labels format: one label per line and a blank line (an `@score<TAB>S` line first with --scores or
 * --nbest; with --nbest the K labellings of a sequence follow one another, each with its `@score` line). JSON Lines:
 * { sequence, labels, score, nbest?, marginals? } (marginals[t][k], null for -Infinity). TSV: with --marginals a
 * header `label<TAB>` + the label names, then per token the predicted label and its K max-marginals; otherwise per
 * token the labels of the n-best list; a blank line between sequences.
 */
export function formatChainPrediction(model: ChainDecoder, w: Float64Array, x: unknown, labelNames: readonly string[], o: ChainOutput, index: number): string {
  const list = model.nbest(w, x, o.nbest ?? 1);
  if (list.length === 0) throw new InputError(`sequence ${index + 1}: the chain's constraints allow no labelling`);
  const T = list[0]!.labels.length;
  const K = model.numLabels;
  const marginals = o.marginals ? model.maxMarginals(w, x) : undefined;
  const named = (y: Int32Array) => namesOf(labelNames, y);
  if (o.format === 'jsonl') {
    const rows = marginals && Array.from({ length: T }, (_, t) => Array.from(marginals.subarray(t * K, (t + 1) * K), num));
    const best = list[0]!;
    return `${JSON.stringify({
      sequence: index + 1,
      labels: named(best.labels),
      score: num(best.score),
      ...(o.nbest !== undefined ? { nbest: list.map((l) => ({ labels: named(l.labels), score: num(l.score) })) } : {}),
      ...(rows ? { marginals: rows } : {}),
    })}\n`;
  }
  if (o.format === 'tsv') {
    const lines: string[] = [];
    if (marginals) {
      if (index === 0) lines.push(['label', ...labelNames].join('\t'));
      for (let t = 0; t < T; t++) lines.push([labelNames[list[0]!.labels[t]!], ...Array.from(marginals.subarray(t * K, (t + 1) * K), String)].join('\t'));
    } else {
      if (o.scores || o.nbest !== undefined) lines.push(['@score', ...list.map((l) => String(l.score))].join('\t'));
      for (let t = 0; t < T; t++) lines.push(list.map((l) => labelNames[l.labels[t]!]).join('\t'));
    }
    return `${lines.join('\n')}\n\n`;
  }
  const blocks = list.map((l) => `${o.scores || o.nbest !== undefined ? `@score\t${l.score}\n` : ''}${named(l.labels).join('\n')}\n\n`);
  return blocks.join('');
}
