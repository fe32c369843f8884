/** Base class of every error gapbcfw throws on purpose. */
export class GapbcfwError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Invalid arguments or data: wrong shapes, NaN/Inf, labels out of range... The CLI exits with code 2. */
export class InputError extends GapbcfwError {}

/** A malformed file. `line` is 1-based when the format is line-oriented. */
export class FormatError extends InputError {
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super(file === undefined ? message : `${file}${line === undefined ? '' : `:${line}`}: ${message}`);
  }
}

/**
 * A broken invariant of gapbcfw itself (e.g. a certificate that weak duality rules out): a bug to report, never a
 * result. The CLI exits with code 1.
 */
export class InternalError extends GapbcfwError {
  constructor(message: string) {
    super(`internal error: ${message} (a bug: please report it)`);
  }
}

/** Throws an InputError when `cond` is false. */
export function check(cond: unknown, message: string | (() => string)): asserts cond {
  if (!cond) throw new InputError(typeof message === 'string' ? message : message());
}

/** Throws when any entry of `a` is NaN or +-Inf. */
export function checkFinite(a: ArrayLike<number>, what: string): void {
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i])) throw new InputError(`${what}[${i}] is ${a[i]} (must be finite)`);
  }
}
