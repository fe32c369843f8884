/**
 * The contract of a task (DESIGN: tasks/, one file per data kind): how `KIND:PATH` is loaded and split, the model
 * it calls for, the options it adds to the commands, its metrics, how its predictions are written and the fields
 * it keeps in a model file. The generic commands (`train`, `eval`, `gap`, `path`, `predict`) only talk to tasks
 * through this interface, so a new kind of data is one task file and one model file.
 * @module
 */
import { InputError } from '../core/errors.js';
import type { StructuredModel } from '../core/problem.js';
import type { Dataset } from '../core/dataset.js';
import type { ModelArray } from '../io/model-file.js';
import type { ModelSpec } from './model-kinds.js';

/** The data kinds of `KIND:PATH`, one task file each. */
export const DATA_KINDS = ['ocr', 'synthetic', 'libsvm', 'idx', 'conll', 'seq', 'conll-columns', 'horse', 'lsp', 'alignment', 'graph', 'multilabel'] as const;
/** A data kind (the KIND of `KIND:PATH`). */
export type DataKind = (typeof DATA_KINDS)[number];

/** Whether a command-line argument names a data set (`KIND:PATH` with a known KIND). */
export function isDataSpec(arg: string): boolean {
  const colon = arg.indexOf(':');
  return colon > 0 && (DATA_KINDS as readonly string[]).includes(arg.slice(0, colon));
}

/** Splits `KIND:PATH` (the path may itself contain colons). @throws InputError on an unknown kind or a missing path. */
export function parseDataSpec(spec: string): { kind: DataKind; path: string } {
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  const path = colon < 0 ? '' : spec.slice(colon + 1);
  if (!(DATA_KINDS as readonly string[]).includes(kind)) {
    throw new InputError(`data set '${spec}' must be KIND:PATH with KIND one of ${DATA_KINDS.join(', ')}`);
  }
  if (kind !== 'synthetic' && path === '') throw new InputError(`data set '${spec}' has no path`);
  return { kind: kind as DataKind, path };
}

/**
 * One command-line option, declared once: the parser, the validation, the help text and the documentation are
 * generated from it. Values are parsed by type: `flag` (no value), `string`, `number` and `integer` (checked
 * against `min`/`max`, with the range in the message), `choice` (one of `choices`).
 */
export interface OptionSpec {
  /** The long name without dashes (`lambda` is `--lambda`). */
  name: string;
  type: 'flag' | 'string' | 'number' | 'integer' | 'choice';
  /** Placeholder of the value in help (X, N, FILE, DIR, KIND:PATH). */
  value?: string;
  /** One line of help. */
  help: string;
  /** The default as help shows it (defaults themselves are applied by the command or the library). */
  default?: string;
  /** Smallest accepted value (numbers); exclusive when `minExclusive`. */
  min?: number;
  minExclusive?: boolean;
  /** Largest accepted value (numbers), inclusive. */
  max?: number;
  /** The accepted values of a `choice`. */
  choices?: readonly string[];
  /** Words a number option also takes (`--lambda auto`), kept as strings. */
  words?: readonly string[];
  /** A one-letter alias (`-o`). */
  short?: string;
  /** The value names a file or folder the command writes: checked before any work starts. */
  output?: 'file' | 'dir';
  /** The value names a file the command reads (no output may overwrite it). */
  input?: boolean;
  /** Only these data kinds take the option (others refuse it with a message naming the option). */
  tasks?: readonly DataKind[];
  /** Only these uses take the option: building a model (`train`, `path`) or writing predictions (`predict`). Default: every command. */
  use?: 'train' | 'predict';
}

/** Values of parsed options by name: strings, numbers and booleans (absent when not given). */
export type OptionValues = Readonly<Record<string, string | number | boolean | undefined>>;

/** What a command asks of a task's loader. */
export interface LoadOptions {
  /** A standard split (`--split`): ocr small | large | all | fold:K, lsp small | full. */
  split?: string;
  /** A separate test set `KIND:PATH` of the same kind (`--test`). */
  test?: string;
  /** Use only the first N training examples (`--limit`). */
  limit?: number;
  /** Use only the first N test examples (`--test-limit`). */
  testLimit?: number;
  /** Read records from disk per access instead of loading them (horse; default: decided by size). */
  stream?: boolean;
  /** The parts the command reads (a loader may skip the expensive reading of the others). Default both. */
  parts?: readonly ('train' | 'test')[];
  /** The task's own options (see {@link Task.options}), by name. */
  values?: OptionValues;
  /** A trained model: the data is encoded for it (its dictionary, label names, corpus, HOG cell size). */
  model?: ModelDescription;
}

/**
 * Task fields of a model file: what the task needs beyond the model to turn its raw data into model inputs or to
 * report its baselines (a CoNLL dictionary lives in the model spec; an alignment model's Dice corpus, a pose
 * model's HOG cell size and mean pose live here). `meta` is plain JSON; `arrays` are stored next to w.
 */
export interface TaskFields {
  meta: Record<string, unknown>;
  arrays: Record<string, ModelArray>;
}

/** What identifies a model apart from its weights: the task it was trained on, its shape and its task fields. */
export interface ModelDescription {
  task: DataKind;
  spec: ModelSpec;
  fields: TaskFields;
}

/** Writes the predictions of a data set: one call per example (in order), then `finish` for the summary. */
export interface PredictionWriter<Y = unknown> {
  /** Writes the prediction of example `i` (of the part being predicted). */
  write(i: number, y: Y): Promise<void>;
  /** Extra figures of what was written (e.g. pixel accuracy against the original masks). */
  finish(): Promise<Record<string, number | string | undefined>>;
}

/** Where text predictions go: a stream (stdout) or a file writer; `write` returning false asks to wait for 'drain'. */
export interface TextSink {
  /** Writes text; false asks the writer to wait for 'drain' before writing more. */
  write(text: string): boolean;
  /** Calls `listener` once the sink can take more. */
  once(event: 'drain', listener: () => void): unknown;
}

/** Where `predict` sends predictions: text to a stream (stdout or `--out FILE`), images to a folder (`--out-dir`). */
export interface PredictionTarget {
  /** Text output (every task that writes text). */
  text?: TextSink;
  /** Folder for image outputs (`--out-dir`); absent: no images. */
  dir?: string;
  /** The task's own options (e.g. `--order`, `--words`, `--no-gold`). */
  values: OptionValues;
}

/** Raw inputs to predict that are not a labelled data set: CoNLL `WORD POS` lines, `english ||| french` pairs. */
export interface RawPrediction {
  /** Text lines in (streamed: each prediction is written as soon as its input is complete), predictions out. */
  run(lines: AsyncIterable<string>, target: PredictionTarget & { name: string }, signal?: AbortSignal): Promise<Record<string, number | string | undefined>>;
}

/** A data set named on the command line, loaded: the model it calls for, its parts and the task's services. */
export interface TaskData<X = unknown, Y = unknown> {
  readonly task: DataKind;
  readonly spec: ModelSpec;
  readonly train: Dataset<X, Y>;
  readonly test?: Dataset<X, Y>;
  /** Human-readable summary, e.g. "ocr (split small): 626 train / 6251 test words". */
  readonly description: string;
  /** The task fields a model trained on this data keeps (see {@link TaskFields}). */
  readonly fields: TaskFields;
  /**
   * The task's metrics of predictions on a part beyond the mean task loss (chunk F1, PCP/PCK, AER...); cheap
   * enough to run at every gap check of training. Keys are camelCase JSON keys.
   */
  metrics?(part: 'train' | 'test', predictions: readonly Y[]): Record<string, number>;
  /** The tables behind the metrics (per-label and per-span-type scores) for eval and predict reports, keyed like `perLabel`. */
  tables?(part: 'train' | 'test', predictions: readonly Y[]): Record<string, Record<string, unknown>>;
  /** The task's baseline on a part (mean pose, Dice alignment), keys prefixed by the baseline's name. */
  baseline?(part: 'train' | 'test'): Record<string, number>;
  /**
   * What the mean task loss is: an error rate (`testError` / `trainError`, the default) or a loss that is not one
   * (`'loss'`: `testLoss` / `trainLoss`, with `testError` / `trainError` kept as aliases of the same value for
   * scripts written against version 0.1; word alignment's asymmetric Hamming loss).
   */
  meanLoss?: 'error' | 'loss';
  /** A writer of predictions of a part (the chunk column, PNG overlays, skeletons, links, labels). */
  writer(part: 'train' | 'test', target: PredictionTarget): PredictionWriter<Y>;
}

/** A data kind: its `KIND:PATH` loader, options, defaults and raw-input predictions. */
export interface Task {
  readonly kind: DataKind;
  /** `KIND:PATH` as help shows it, e.g. `ocr:letter.data(.gz)`. */
  readonly data: string;
  /** One line: what the data is and its splits. */
  readonly summary: string;
  /** Splits accepted by `--split` (a description for help), when the task has standard splits. */
  readonly splits?: string;
  /** What `predict` writes: text lines (to stdout or a file) or images (into a folder). */
  readonly predictions: 'text' | 'images';
  /** Whether `--test KIND:PATH` (a separate test file of the same kind) applies. */
  readonly separateTest?: boolean;
  /** Options only this task takes (they appear in the commands' option tables under the task). */
  readonly options: readonly OptionSpec[];
  /** Training defaults that differ from the solvers' (e.g. LSP's lambda 0.01; multiclass's exact steps with perm sampling). */
  readonly defaults?: { lambda?: number; gapThreshold?: number; maxPasses?: number; solver?: string; sampling?: 'uniform' | 'perm' | 'gap' };
  /** Loads the data (for training when `options.model` is absent, else encoded for that model). */
  load(path: string, options: LoadOptions): Promise<TaskData>;
  /** Predictions of raw text inputs with a trained model, when the task reads any (conll, alignment). */
  raw?(model: ModelDescription, w: Float64Array, build: () => StructuredModel<unknown, unknown>): RawPrediction;
  /** Checks the task fields of a model file (throws FormatError naming `file`). */
  checkFields?(fields: TaskFields, file: string): void;
}
