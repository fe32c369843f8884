import { expect } from 'vitest';

/**
 * `actual` equals `expected` in structure and in every non-number, and every number is within `rel` of the expected
 * one relative to max(1, |expected|): for results whose arithmetic has since been reordered (partial sums in lanes),
 * which moves the last bits but nothing else.
 */
export function expectDeepClose(actual: unknown, expected: unknown, rel = 1e-9, path = '$'): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const ok = Object.is(actual, expected) || Math.abs(actual - expected) <= rel * Math.max(1, Math.abs(expected));
    expect(ok, `${path}: ${actual} is not within ${rel} (relative) of ${expected}`).toBe(true);
  } else if (Array.isArray(expected) && Array.isArray(actual)) {
    expect(actual.length, `${path}: length`).toBe(expected.length);
    expected.forEach((e, i) => expectDeepClose(actual[i], e, rel, `${path}[${i}]`));
  } else if (expected !== null && typeof expected === 'object' && actual !== null && typeof actual === 'object') {
    expect(Object.keys(actual).sort(), `${path}: keys`).toEqual(Object.keys(expected).sort());
    for (const [k, e] of Object.entries(expected)) expectDeepClose((actual as Record<string, unknown>)[k], e, rel, `${path}.${k}`);
  } else {
    expect(actual, path).toEqual(expected);
  }
}
