/**
 * The argument checks of the native wrappers, in one place (as sharp's lib/is.js): what a value is in words, checks
 * that name the function and the argument, and the conversion of the addon's own errors. Every wrapper validates its
 * arguments here before they cross into C++; a TypeError or RangeError the addon still raises becomes an InputError.
 * @module
 */
import { GapbcfwError, InputError } from '../core/errors.js';

/** What `x` is, for messages: `null`, `Float32Array`, `Array`, `number`... */
export function describe(x: unknown): string {
  if (x === null) return 'null';
  if (ArrayBuffer.isView(x)) return x.constructor.name;
  if (Array.isArray(x)) return 'Array';
  return typeof x;
}

/** Throws an InputError with `message` unless `cond`. */
export function check(cond: unknown, message: string): asserts cond {
  if (!cond) throw new InputError(message);
}

/** A finite number, else an InputError naming `fn` and `name`. */
export function finiteNumber(fn: string, name: string, x: unknown): number {
  check(typeof x === 'number' && Number.isFinite(x), `${fn}: ${name} must be a finite number, got ${String(x)}`);
  return x;
}

/** A finite number >= 0. */
export function nonNegativeNumber(fn: string, name: string, x: unknown): number {
  check(typeof x === 'number' && Number.isFinite(x) && x >= 0, `${fn}: ${name} must be a finite number >= 0, got ${String(x)}`);
  return x;
}

/** An integer in [min, max]. */
export function integerIn(fn: string, name: string, x: unknown, min: number, max: number): number {
  check(typeof x === 'number' && Number.isInteger(x) && x >= min && x <= max, `${fn}: ${name} must be an integer from ${min} to ${max}, got ${String(x)}`);
  return x;
}

/** A typed array of the given class (and length, when given). */
export function typedArray<T extends ArrayBufferView & { length: number }>(fn: string, name: string, x: unknown, type: { new (n: number): T; name: string }, length?: number): T {
  check(x instanceof type, `${fn}: ${name} must be a ${type.name}, got ${describe(x)}`);
  if (length !== undefined) check(x.length === length, `${fn}: ${name} has length ${x.length}, expected ${length}`);
  return x;
}

/** Whether two views overlap in memory. */
export function sharesMemory(x: ArrayBufferView, y: ArrayBufferView): boolean {
  if (x.buffer !== y.buffer || x.byteLength === 0 || y.byteLength === 0) return false;
  return x.byteOffset < y.byteOffset + y.byteLength && y.byteOffset < x.byteOffset + x.byteLength;
}

/** `signal` of an async call: undefined, or an AbortSignal that has not fired (else its reason is thrown). */
export function abortSignal(fn: string, signal: unknown): AbortSignal | undefined {
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new InputError(`${fn}: opts.signal must be an AbortSignal`);
  signal?.throwIfAborted();
  return signal;
}

/**
 * An error of the addon as gapbcfw's: its TypeError/RangeError (bad arguments the checks above did not catch) becomes
 * an InputError, any other Error a GapbcfwError; aborts and gapbcfw's own errors pass through.
 */
export function fromNative(e: unknown): unknown {
  if (e instanceof TypeError || e instanceof RangeError) return new InputError(e.message);
  if (e instanceof Error && !(e instanceof GapbcfwError) && (e as { code?: unknown }).code !== 'ABORT_ERR') return new GapbcfwError(e.message);
  return e;
}

/** Runs a native call with its errors converted by {@link fromNative}. */
export function callNative<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw fromNative(e);
  }
}
