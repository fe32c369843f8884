/**
 * Pieces several task files share: empty task fields, a line writer for text predictions, and the option value
 * accessors.
 * @module
 */
import { InputError } from '../core/errors.js';
import type { Dataset } from '../core/dataset.js';
import type { OptionValues, PredictionTarget, PredictionWriter, TaskFields, TextSink } from './types.js';

/** Task fields of a task that keeps nothing beyond the model spec. */
export function noFields(): TaskFields {
  return { meta: {}, arrays: {} };
}

/** A writer of one text line per example (`format` gives the line), to the target's text stream. */
export function lineWriter<Y>(target: PredictionTarget, format: (i: number, y: Y) => string): PredictionWriter<Y> {
  const out = target.text;
  return {
    write: async (i, y) => {
      if (out) await writeText(out, `${format(i, y)}\n`);
    },
    finish: async () => ({}),
  };
}

/** Writes text to a sink, waiting for it to drain when its buffer is full (large outputs stay in bounded memory). */
export function writeText(out: TextSink, text: string): Promise<void> {
  if (out.write(text)) return Promise.resolve();
  return new Promise((resolve) => out.once('drain', () => resolve()));
}

/** Predicted label names of a sequence: joined without spaces when every name is one character (OCR letters). */
export function sequenceText(labelNames: readonly string[], y: ArrayLike<number>): string {
  const names = Array.from(y, (k) => labelNames[k] ?? String(k));
  return names.join(labelNames.every((s) => s.length === 1) ? '' : ' ');
}

/** A number option's value (parsed and range-checked by the command's option table). */
export function numberValue(values: OptionValues | undefined, name: string): number | undefined {
  const v = values?.[name];
  return typeof v === 'number' ? v : undefined;
}

/** A string option's value. */
export function stringValue(values: OptionValues | undefined, name: string): string | undefined {
  const v = values?.[name];
  return typeof v === 'string' ? v : undefined;
}

/** A flag's value. */
export function flagValue(values: OptionValues | undefined, name: string): boolean {
  return values?.[name] === true;
}

/** The first `limit` examples of a set (all when undefined); an empty result is an error naming `what`. */
export function firstOf<X, Y>(set: Dataset<X, Y>, limit: number | undefined, what: string): Dataset<X, Y> {
  if (limit === undefined || limit >= set.length) return set;
  if (limit < 1) throw new InputError(`${what}: a limit must be a positive integer, got ${limit}`);
  return set.slice(0, limit);
}
