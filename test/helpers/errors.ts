// The assertion every reader test makes: a FormatError, naming the line (when given) and saying what (when given).
import { expect } from 'vitest';
import { FormatError } from '../../src/core/errors.js';

/** Calls `fn`, expects a FormatError (with `line` in its field and message, and a message matching `re`) and returns it. */
export function expectFormatError(fn: () => unknown, line?: number, re?: RegExp): FormatError {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(FormatError);
  const fe = err as FormatError;
  if (line !== undefined) {
    expect(fe.line).toBe(line);
    expect(fe.message).toContain(`:${line}:`);
  }
  if (re) expect(fe.message).toMatch(re);
  return fe;
}
