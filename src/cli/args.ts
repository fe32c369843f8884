/**
 * Declarative command tables: every command lists its positionals and options once (src/tasks/types.ts
 * `OptionSpec`), and the parser, the validation (types, ranges, choices, which data kinds take an option), the
 * output checks and `gapbcfw help COMMAND` are generated from that list, so help cannot drift from the flags.
 * @module
 */
import { describeRange, inRange } from '../core/settings.js';
import type { OptionSpec, OptionValues } from '../tasks/types.js';
import { UsageError, type Io } from './common.js';

/** An option of a command: a declared option plus the help section it is listed under. */
export interface CommandOption extends OptionSpec {
  /** Help section (default: "Options"). */
  group?: string;
  /** An output that may be the same file as the input option of this name (rewritten in place: --checkpoint and --resume). */
  updates?: string;
  /** False when the output must be a regular file (read back later: a checkpoint), not a device, FIFO or stdout. */
  streamable?: boolean;
  /** The command makes the output file's folder (and missing parents) when it is missing. */
  makeFolder?: boolean;
  /**
   * False when the command locks what it writes itself, rather than the output as a whole for its run
   * (prepare-horse: parallel parts share one folder).
   */
  lock?: false;
  /**
   * Text lines on stdout after which `--json` may still end stdout with its summary line (predictions); any other
   * output on stdout (`--out -`) sends the summary to stderr and refuses `--json`, so that the output stays whole.
   */
  summaryAfter?: boolean;
}

/** A positional argument. */
export interface Positional {
  name: string;
  help: string;
  /** The argument names a file the command reads (`data`: a `KIND:PATH` data set). */
  input?: 'file' | 'data';
  optional?: boolean;
  /** Takes every remaining argument (at least one unless optional). */
  variadic?: boolean;
  /** Absent or `-`, the command reads stdin (which no output may then overwrite). */
  stdin?: boolean;
}

/** A command of `gapbcfw`: its table and its body. */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Paragraphs printed by `gapbcfw help NAME` between the usage line and the options. */
  description?: string;
  positionals: readonly Positional[];
  options: readonly CommandOption[];
  /** Other names that run this command with the same table (`tag` is `predict`). */
  aliases?: readonly string[];
  run(args: Args, io: Io): Promise<number>;
}

/** Parsed arguments: positionals, option values (typed by the table) and the options the user gave. */
export interface Args {
  readonly positionals: readonly string[];
  readonly values: OptionValues;
  readonly given: ReadonlySet<string>;
  /** The command that parsed them (for messages). */
  readonly command: Command;
  /** The name the command was called by when it is one of its aliases (`gapbcfw align` for predict). */
  readonly alias?: string;
}

const NUMBER_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Parses and checks one option value. @throws UsageError naming the option and, for numbers, the range. */
function parseValue(o: OptionSpec, raw: string): string | number {
  if (o.type === 'choice') {
    if (!o.choices!.includes(raw)) throw new UsageError(`--${o.name} must be one of ${o.choices!.join(', ')}, got '${raw}'`);
    return raw;
  }
  if (o.type !== 'number' && o.type !== 'integer') return raw;
  if (o.words?.includes(raw)) return raw;
  const x = Number(raw);
  if (!NUMBER_RE.test(raw.trim()) || !inRange(o, x)) throw new UsageError(`--${o.name} must be ${describeRange(o)}, got '${raw}'`);
  return x;
}

/**
 * Parses a command's arguments against its table: `--name value`, `--name=value`, `-x value`, flags, `--` (the
 * rest are positionals). A value may start with `-` when it is a number or `-` itself, so `--lambda -1` reaches
 * the range check. @throws UsageError for an unknown option, a missing value or a value out of range.
 */
export function parseArgs(command: Command, argv: readonly string[]): Args {
  const byName = new Map(command.options.map((o) => [o.name, o]));
  const byShort = new Map(command.options.filter((o) => o.short).map((o) => [o.short!, o]));
  const values: Record<string, string | number | boolean | undefined> = {};
  const given = new Set<string>();
  const positionals: string[] = [];
  for (let k = 0; k < argv.length; k++) {
    const arg = argv[k]!;
    if (arg === '--') {
      positionals.push(...argv.slice(k + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-' || NUMBER_RE.test(arg)) {
      positionals.push(arg);
      continue;
    }
    const long = arg.startsWith('--');
    const eq = arg.indexOf('=');
    const name = long ? arg.slice(2, eq < 0 ? undefined : eq) : arg.slice(1, 2);
    const o = long ? byName.get(name) : byShort.get(name);
    if (!o) {
      const guess = long ? didYouMean(name, [...command.options.map((c) => c.name), 'version']) : undefined;
      throw new UsageError(`unknown option '${long ? `--${name}` : `-${name}`}' for ${command.name} (${guess ? `did you mean --${guess}? ` : ''}gapbcfw help ${command.name} lists its options)`);
    }
    if (given.has(o.name)) throw new UsageError(`--${o.name} is given twice`);
    given.add(o.name);
    const inline = long ? (eq < 0 ? undefined : arg.slice(eq + 1)) : arg.length > 2 ? arg.slice(2) : undefined;
    if (o.type === 'flag') {
      if (inline !== undefined) throw new UsageError(`--${o.name} takes no value`);
      values[o.name] = true;
      continue;
    }
    let raw = inline;
    if (raw === undefined) {
      const next = argv[k + 1];
      if (next === undefined || (next.startsWith('-') && next !== '-' && !NUMBER_RE.test(next))) throw new UsageError(`--${o.name} needs a value${o.value ? ` (${o.value})` : ''}`);
      raw = next;
      k++;
    }
    values[o.name] = parseValue(o, raw);
  }
  checkPositionals(command, positionals);
  return { positionals, values, given, command };
}

/** Edit distance (insertions, deletions, substitutions and swaps of neighbours) between two short words. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name closest to a mistyped one, for "did you mean": within 1 edit for names of up to 4 letters, 2 up to
 * 8, else 3, or a known name that starts with it (`--thread`); undefined when nothing is that close.
 */
export function didYouMean(typed: string, known: readonly string[]): string | undefined {
  const limit = typed.length <= 4 ? 1 : typed.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = name.startsWith(typed) && typed.length >= 3 ? 0.5 : editDistance(typed, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return bestDistance <= limit ? best : undefined;
}

function checkPositionals(command: Command, positionals: readonly string[]): void {
  const ps = command.positionals;
  const min = ps.filter((p) => !p.optional).length;
  const max = ps.some((p) => p.variadic) ? Infinity : ps.length;
  if (positionals.length < min || positionals.length > max) {
    const shape = ps.map((p) => (p.optional ? `[${p.name}${p.variadic ? '...' : ''}]` : `${p.name}${p.variadic ? '...' : ''}`)).join(' ');
    const got = positionals.length === 0 ? 'nothing' : positionals.map((p) => `'${p}'`).join(' ');
    throw new UsageError(`${command.name} takes ${shape || 'no arguments'}, got ${got} (gapbcfw help ${command.name})`);
  }
}

/** The positional of a parsed argument list by index, as a string (checked present by the table). */
export function positional(a: Args, k: number): string {
  return a.positionals[k]!;
}

/** Option accessors with the types of the table. */
export const value = {
  string: (a: Args, name: string): string | undefined => (typeof a.values[name] === 'string' ? (a.values[name] as string) : undefined),
  number: (a: Args, name: string): number | undefined => (typeof a.values[name] === 'number' ? (a.values[name] as number) : undefined),
  flag: (a: Args, name: string): boolean => a.values[name] === true,
};

/** The usage line of a command. */
export function usageLine(c: Command): string {
  const ps = c.positionals.map((p) => (p.optional ? `[${p.name}${p.variadic ? '...' : ''}]` : `${p.name}${p.variadic ? '...' : ''}`));
  return `gapbcfw ${c.name}${ps.length ? ` ${ps.join(' ')}` : ''}${c.options.length ? ' [options]' : ''}`;
}

/** One option's help line: flag, value placeholder, help, default and range. */
export function optionLine(o: OptionSpec): [string, string] {
  const flag = `${o.short ? `-${o.short}, ` : ''}--${o.name}${o.type === 'flag' ? '' : ` ${o.value ?? (o.type === 'choice' ? o.choices!.join('|') : 'X')}`}`;
  const extra: string[] = [];
  if (o.type === 'choice' && o.value) extra.push(o.choices!.join(' | '));
  if (o.default !== undefined) extra.push(`default ${o.default}`);
  if ((o.type === 'number' || o.type === 'integer') && (o.min !== undefined || o.max !== undefined)) extra.push(describeRange(o));
  return [flag, `${o.help}${extra.length ? ` (${extra.join('; ')})` : ''}`];
}

/** Two columns, the second wrapped at `width`. */
export function columns(rows: readonly [string, string][], width = 110): string {
  const left = Math.min(30, Math.max(...rows.map(([a]) => a.length)) + 2);
  const out: string[] = [];
  for (const [a, b] of rows) {
    const words = b.split(' ');
    const lines: string[] = [];
    let line = '';
    for (const w of words) {
      if (line && line.length + 1 + w.length > width - left - 2) {
        lines.push(line);
        line = w;
      } else line = line ? `${line} ${w}` : w;
    }
    lines.push(line);
    const first = a.length + 2 > left ? [`  ${a}`, ...lines.map((l) => `${' '.repeat(left + 2)}${l}`)] : [`  ${a.padEnd(left)}${lines[0]}`, ...lines.slice(1).map((l) => `${' '.repeat(left + 2)}${l}`)];
    out.push(...first);
  }
  return out.join('\n');
}

/** The help of a command, generated from its table. */
export function commandHelp(c: Command): string {
  const parts = [`Usage: ${usageLine(c)}`, '', c.summary];
  if (c.aliases?.length) parts.push(`(also: ${c.aliases.map((a) => `gapbcfw ${a}`).join(', ')})`);
  if (c.description) parts.push('', c.description);
  if (c.positionals.length) parts.push('', 'Arguments:', columns(c.positionals.map((p) => [p.name, p.help])));
  const groups = new Map<string, CommandOption[]>();
  for (const o of c.options) {
    const g = o.group ?? 'Options';
    groups.set(g, [...(groups.get(g) ?? []), o]);
  }
  for (const [g, os] of groups) parts.push('', `${g}:`, columns(os.map(optionLine)));
  parts.push('', 'Exit codes: 0 success, 1 the job failed, 2 bad usage or bad input; 130 / 143 / 129 after SIGINT / SIGTERM / SIGHUP.');
  return parts.join('\n');
}
