/**
 * `gapbcfw predict MODEL [INPUT]`: the one verb that applies a model. On a data set (`KIND:PATH`) it writes the
 * task's predictions of a part (the chunk column, PNG overlays, PNG skeletons, alignment links, labels) and
 * reports their error and metrics; on raw input of the model's task (CoNLL `WORD POS` lines, `english ||| french`
 * pairs; a file or stdin, streamed) it writes the predictions as the input arrives. `tag` and `align` are its
 * aliases.
 * @module
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { loadModel } from '../tasks/model.js';
import { existsSync } from 'node:fs';
import { removeEmptyFolder, StreamedOutput } from '../io/output.js';
import { isDataSpec, meanLossFields, taskOf } from '../tasks/index.js';
import { buildModel } from '../tasks/model-kinds.js';
import { CHAIN_OUTPUT_OPTIONS, chainOutputOf, formatChainPrediction, isChainDecoder } from '../tasks/chains.js';
import { writeText } from '../tasks/common.js';
import type { PredictionTarget, TextSink } from '../tasks/types.js';
import { positional, value, type Args, type Command } from './args.js';
import { UsageError, report, type Io } from './common.js';
import { loadPart, PART_OPTION } from './eval.js';
import { textLines } from './lines.js';
import { BACKEND_OPTIONS, DATA_OPTIONS, REPORT_OPTIONS, decodeBackend, taskOptionTable } from './options.js';
import { countProgress } from './progress.js';
import { checkCommandOutputs, withInterrupts } from './session.js';

const outputs = 'Predictions';
export const predictCommand: Command = {
  name: 'predict',
  aliases: ['tag', 'align'],
  summary: "apply a model: the task's predictions of a data set or of raw input, with their error and metrics",
  description:
    'What each task writes: ocr and synthetic the predicted letters of every sequence, libsvm and idx the class of every\n' +
    'row, conll the input with a predicted chunk column (WORD POS [GOLD] PRED, the conlleval input), alignment one line\n' +
    "of links per pair ('j-k': English word j, French word k), horse PNG overlays of the original images and lsp PNG\n" +
    'skeletons (into --out-dir). Text goes to stdout unless --out FILE; the summary goes to stderr when the predictions\n' +
    'use stdout (with --json it is the last stdout line). Raw input (conll, alignment models) is read line by line and\n' +
    'each prediction is written as soon as its input is complete.',
  positionals: [
    { name: 'MODEL', help: 'a model file (gapbcfw train --out)', input: 'file' },
    { name: 'INPUT', help: "KIND:PATH (a data set: --part test by default), or raw input of the model's task (a file, or - / absent: stdin)", input: 'data', optional: true, stdin: true },
  ],
  options: [
    PART_OPTION,
    { name: 'out', type: 'string', value: 'FILE', short: 'o', output: 'file', summaryAfter: true, help: 'write text predictions here instead of stdout', group: outputs },
    { name: 'out-dir', type: 'string', value: 'DIR', output: 'dir', help: 'write image predictions (horse overlays, lsp skeletons) into DIR', group: outputs },
    ...CHAIN_OUTPUT_OPTIONS,
    ...DATA_OPTIONS,
    ...taskOptionTable('predict'),
    ...BACKEND_OPTIONS,
    ...REPORT_OPTIONS,
  ],
  run: runPredict,
};

/** The task each alias of predict applies. */
const ALIAS_TASKS: Readonly<Record<string, string>> = { tag: 'conll', align: 'alignment' };

async function runPredict(a: Args, io: Io): Promise<number> {
  checkCommandOutputs(a, io); // the predictions' own rule for the summary: below
  const trained = loadModel(positional(a, 0));
  // The aliases name a task: a model of another one is refused here, before its input is read as the wrong format.
  const aliasTask = a.alias === undefined ? undefined : ALIAS_TASKS[a.alias];
  if (aliasTask !== undefined && trained.task !== aliasTask) {
    throw new UsageError(`${a.alias} applies ${aliasTask} models, and ${positional(a, 0)} is a ${trained.spec.kind} model (trained on ${trained.task} data): use gapbcfw predict`);
  }
  const input = a.positionals[1] ?? '-';
  const outFile = value.string(a, 'out');
  const textTask = taskOf(trained.task).predictions === 'text';
  if (!textTask && outFile !== undefined) throw new UsageError(`${trained.task} predictions are images: give --out-dir DIR, not --out`);
  if (textTask && a.given.has('out-dir')) throw new UsageError(`${trained.task} predictions are text: give --out FILE (or none for stdout), not --out-dir`);
  const file = outFile === undefined || outFile === '-' ? undefined : StreamedOutput.open(outFile, { stdout: io.stdout, warn: (m) => io.stderr.write(`gapbcfw: ${m}\n`) });
  const fileSink: TextSink | undefined = file && { write: (text) => (file.write(text), true), once: () => undefined };
  const target: PredictionTarget = { text: textTask ? (fileSink ?? io.stdout) : undefined, dir: value.string(a, 'out-dir'), values: a.values };
  const newDir = target.dir !== undefined && !existsSync(target.dir);
  const json = value.flag(a, 'json');
  let summary: Record<string, unknown> = {};
  let headline = '';
  const code = await withInterrupts(io, 'finishing the current example and writing what is done', async (signal) => {
    try {
      return await predictInto(signal);
    } catch (e) {
      file?.discard();
      if (newDir) removeEmptyFolder(target.dir!);
      throw e;
    }
  });
  file?.close();
  // With predictions on stdout, the human summary goes to stderr; --json keeps the contract (last stdout line).
  report(summary, json, textTask && file === undefined && !json ? { stdout: io.stderr } : io, headline);
  return code;

  async function predictInto(signal: AbortSignal): Promise<number> {
    if (isDataSpec(input)) {
      const part = value.string(a, 'part') as 'train' | 'test' | undefined;
      const { data, part: used } = await loadPart(a, io, trained, part);
      const set = used === 'test' ? data.test! : data.train;
      const model = buildModel(trained.spec, decodeBackend(a));
      const chainOutput = chainOutputOf(a.values);
      if (chainOutput && !isChainDecoder(model)) throw new UsageError(`--nbest, --marginals, --scores and --format apply to chain models, not a ${trained.spec.kind} model`);
      const labelNames = (trained.spec as { labelNames?: string[] }).labelNames ?? [];
      const writer = data.writer(used, target);
      const progress = countProgress(io.stderr, 'predict', value.flag(a, 'quiet'));
      const predictions: unknown[] = [];
      let loss = 0;
      for (let i = 0; i < set.length && !signal.aborted; i++) {
        const y = model.decode(trained.w, set.input(i));
        loss += model.loss(set.label(i), y);
        predictions.push(y);
        if (chainOutput && isChainDecoder(model)) {
          if (target.text) await writeText(target.text, formatChainPrediction(model, trained.w, set.input(i), labelNames, chainOutput, i));
        } else await writer.write(i, y);
        progress(i + 1, set.length);
        if (i % 64 === 63) await yieldToEventLoop(); // signals get through on long runs
      }
      const n = predictions.length;
      const complete = n === set.length;
      summary = {
        command: 'predict', task: data.task, part: used, n, complete: complete ? undefined : false,
        ...meanLossFields(data, used, n > 0 ? loss / n : undefined),
        ...(complete && n > 0 ? data.metrics?.(used, predictions) : {}),
        ...(complete && n > 0 ? data.tables?.(used, predictions) : {}),
        ...(complete ? data.baseline?.(used) : {}),
        ...(await writer.finish()),
        outDir: target.dir, out: file ? outFile : undefined,
      };
      headline = `predicted ${n} examples of ${input} (${used})`;
      return 0;
    }
    const task = taskOf(trained.task);
    const dataFlag = ['part', 'split', 'test', 'limit', 'test-limit', 'stream', 'in-memory'].find((f) => a.given.has(f));
    if (dataFlag !== undefined && task.raw) throw new UsageError(`--${dataFlag} applies to a data set KIND:PATH, and ${input === '-' ? 'stdin' : input} is raw input`);
    if (!task.raw) throw new UsageError(`${positional(a, 0)} is a ${trained.spec.kind} model: give a data set KIND:PATH to predict (it reads ${trained.task} data)`);
    const stdin = io.stdin ?? process.stdin;
    if (input === '-' && stdin.isTTY) throw new UsageError(`give an input file or pipe ${trained.task} input into stdin (gapbcfw help predict)`);
    const name = input === '-' ? '<stdin>' : input;
    const r = await task.raw(trained, trained.w, () => buildModel(trained.spec, decodeBackend(a))).run(textLines(input, stdin, signal), { ...target, name }, signal);
    summary = { command: 'predict', task: trained.task, ...r, out: file ? outFile : undefined };
    headline = `predicted ${name}`;
    return 0;
  }
}
