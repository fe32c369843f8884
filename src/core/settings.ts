/**
 * Settings tables (after scikit-learn's parameter constraints and OSQP's one `validate_settings` for every front
 * end): each setting of a solver family is declared once, with its type, range, default, which solvers take it,
 * its CLI flag and its help. The library validates plain settings objects against the table, and the CLI's option
 * rows and docs/options.md are generated from it, so the library and the command line refuse the same things with
 * the same words. Messages name a setting by its CLI flag (`--gap-check`), or by its key when it has none.
 * @module
 */
import { OptionError } from './errors.js';

/** One setting of a table. */
export interface SettingSpec<Solver extends string = string> {
  /** Key in the settings object; `a.b` is field `b` of the object setting `a` (`cache.maxSize`). */
  key: string;
  /** CLI flag without dashes; none for library-only settings. */
  flag?: string;
  /** For a boolean that is on by default somewhere: the flag that turns it off (`no-averaging`). */
  negation?: string;
  type: 'number' | 'integer' | 'boolean' | 'choice';
  /** Values of a `choice`. */
  choices?: readonly string[];
  /** Range of a number (inclusive unless `minExclusive`). */
  min?: number;
  minExclusive?: boolean;
  max?: number;
  /** Placeholder of the value in help (X, N, S). */
  value?: string;
  /** The default in words (defaults are applied by the solvers). */
  default: string;
  /** One line of CLI help. */
  help: string;
  /** The longer text of docs/options.md (default: `help`). */
  doc?: string;
  /** The paper's equation or algorithm. */
  paper?: string;
  /** Section of docs/options.md. */
  section: string;
  /** Solvers that take the setting (default: every solver of the table). */
  solvers?: readonly Solver[];
  /** Values besides those of `type` that the library accepts (e.g. `false` for heuristicExit); not on the CLI. */
  alsoAccepts?: (value: unknown) => boolean;
}

/** The range of a number setting or option (`type` other than number and integer reads as number). */
export interface NumberRange {
  type: string;
  min?: number;
  minExclusive?: boolean;
  max?: number;
}

/** "a positive number <= 1e+12", "an integer from 0 to 4294967295": a valid value of a number setting in words. */
export function describeRange(o: NumberRange): string {
  const what = o.type === 'integer' ? 'an integer' : 'a number';
  // Exact integers as written; round powers of ten and extreme magnitudes as 1e6, 1e-12.
  const fmt = (x: number) => {
    const e = x.toExponential().replace('e+', 'e');
    if (Number.isInteger(x) && Math.abs(x) < 1e15 && !/^-?1e\d+$/.test(e)) return String(x);
    return Math.abs(x) >= 1e6 || (x !== 0 && Math.abs(x) < 1e-3) ? e : String(x);
  };
  const { min, max } = o;
  const upper = max === undefined ? '' : ` <= ${fmt(max)}`;
  if (min === undefined) return `${what}${upper}`;
  if (min === 0 && o.minExclusive) return `${o.type === 'integer' ? 'a positive integer' : 'a positive number'}${upper}`;
  if (o.minExclusive) return `${what} > ${fmt(min)}${max === undefined ? '' : ` and${upper}`}`;
  if (max !== undefined) return `${what} from ${fmt(min)} to ${fmt(max)}`;
  return `${what} >= ${fmt(min)}`;
}

/** Whether a number is inside a setting's range (and an integer where it must be). */
export function inRange(o: NumberRange, x: number): boolean {
  return (
    Number.isFinite(x) &&
    (o.type !== 'integer' || Number.isSafeInteger(x)) &&
    (o.min === undefined || (o.minExclusive ? x > o.min : x >= o.min)) &&
    (o.max === undefined || x <= o.max)
  );
}

/** How messages name a setting: `--flag` (the negation when the value is false), else its key. */
export function settingName(o: SettingSpec, value?: unknown): string {
  if (value === false && o.negation) return `--${o.negation}`;
  return o.flag ? `--${o.flag}` : o.key;
}

/** The value of `key` (`a.b` reads field b of object a; undefined when a is not an object). */
export function settingValue(settings: object, key: string): unknown {
  const [head, field] = key.split('.') as [string, string | undefined];
  const v = (settings as Record<string, unknown>)[head];
  if (field === undefined) return v;
  return v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[field] : undefined;
}

/** Checks the type and range of one given value. @throws OptionError naming the setting. */
export function checkSettingValue(o: SettingSpec, value: unknown): void {
  if (value === undefined || o.alsoAccepts?.(value)) return;
  const name = settingName(o);
  if (o.type === 'boolean') {
    if (typeof value !== 'boolean') throw new OptionError(`${name} must be true or false, got ${JSON.stringify(value)}`);
  } else if (o.type === 'choice') {
    if (!o.choices!.includes(value as string)) throw new OptionError(`${name} must be one of ${o.choices!.join(', ')}, got ${JSON.stringify(value)}`);
  } else if (typeof value !== 'number' || !inRange(o, value)) {
    throw new OptionError(`${name} must be ${describeRange(o)}, got ${typeof value === 'number' ? String(value) : JSON.stringify(value)}`);
  }
}

/**
 * Checks every given setting of a table: unknown keys (with the nearest known one), types and ranges, and that the
 * chosen solver takes it (`refuse(setting, value)` words the refusal for a solver that does not).
 * @throws OptionError on the first problem.
 */
export function checkSettings<S extends string>(
  table: readonly SettingSpec<S>[],
  settings: object,
  solver: S,
  refuse: (o: SettingSpec<S>, value: unknown) => string,
  known: readonly string[] = [],
): void {
  if (settings === null || typeof settings !== 'object') throw new OptionError(`settings must be an object, got ${settings === null ? 'null' : typeof settings}`);
  const keys = new Set([...table.map((o) => o.key.split('.')[0]!), ...known]);
  for (const [k, v] of Object.entries(settings)) {
    if (v === undefined || keys.has(k)) continue;
    const near = nearest(k, [...keys]);
    throw new OptionError(`unknown setting '${k}'${near ? ` (did you mean '${near}'?)` : ''}`);
  }
  for (const o of table) {
    const v = settingValue(settings, o.key);
    if (v === undefined) continue;
    checkSettingValue(o, v);
    if (o.solvers && !o.solvers.includes(solver)) throw new OptionError(refuse(o, v));
  }
}

/** The candidate closest to `word` by edit distance, when it is close enough to be a likely typo. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return bestDistance <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

/** Levenshtein distance (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
