/**
 * The errors gapbcfw throws on purpose, each with a stable `code` (as Node's own errors have) that programs can test
 * instead of messages, and that the CLI maps to its exit status (src/cli/common.ts): bad input, format or option
 * -> 2; the others -> 1.
 *
 * | code | class | meaning |
 * | --- | --- | --- |
 * | `ERR_GAPBCFW_INTERNAL` | {@link GapbcfwError} | a failed job or a broken invariant (a bug: please report it) |
 * | `ERR_GAPBCFW_BAD_INPUT` | {@link InputError} | invalid arguments or data (shapes, NaN/Inf, label ranges), or an output path refused before any work |
 * | `ERR_GAPBCFW_BAD_FORMAT` | {@link FormatError} | a malformed file (the message names file and line) |
 * | `ERR_GAPBCFW_BAD_OPTION` | {@link OptionError} | a setting or a combination of settings is refused |
 * | `ERR_GAPBCFW_WRITE_FAILED` | `OutputError` (src/io/output.ts) | a write failed after it started: full disk, I/O error, reader gone |
 * | `ERR_GAPBCFW_NATIVE_LOAD` | `NativeLoadError` (src/native/addon.ts) | the native addon could not be loaded |
 * | `ERR_GAPBCFW_MISSING_PEER` | {@link MissingPeerError} | an optional peer package (vega, sharp, ...) is not installed |
 * @module
 */

/** Base class of every error gapbcfw throws on purpose. */
export class GapbcfwError extends Error {
  /** Stable identifier of the kind of error (see the module's table). */
  readonly code: string;
  constructor(message: string, code = 'ERR_GAPBCFW_INTERNAL') {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Invalid arguments or data: wrong shapes, NaN/Inf, labels out of range... The CLI exits with code 2. */
export class InputError extends GapbcfwError {
  constructor(message: string, code = 'ERR_GAPBCFW_BAD_INPUT') {
    super(message, code);
  }
}

/** A malformed file. `line` is 1-based when the format is line-oriented. */
export class FormatError extends InputError {
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super(file === undefined ? message : `${file}${line === undefined ? '' : `:${line}`}: ${message}`, 'ERR_GAPBCFW_BAD_FORMAT');
  }
}

/** A refused setting or combination of settings (src/solvers/settings.ts and the other settings tables). */
export class OptionError extends InputError {
  constructor(message: string) {
    super(message, 'ERR_GAPBCFW_BAD_OPTION');
  }
}

/** An optional peer package that a feature needs is not installed; the message says what to install. */
export class MissingPeerError extends GapbcfwError {
  constructor(
    readonly packageName: string,
    feature: string,
    version: string,
  ) {
    super(`${feature} needs the optional package '${packageName}': npm install ${packageName}@${version}`, 'ERR_GAPBCFW_MISSING_PEER');
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
