#!/usr/bin/env node
/**
 * The `gapbcfw` command line: a table of commands (each with its declarative option table, src/cli/args.ts), one
 * dispatcher, `gapbcfw help [COMMAND]` and `--version`. Output to a closed pipe (`| head`) ends the run quietly.
 * @module
 */
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFailure } from '../io/output.js';
import { packageRoot } from '../core/package-root.js';
import { TASKS, TASKS_OF_MODEL } from '../tasks/index.js';
import { setThreads, threadCap } from '../native/threads.js';
import { columns, commandHelp, didYouMean, parseArgs, value, type Command } from './args.js';
import { UsageError, reportFailure, type Io } from './common.js';
import { evalCommand } from './eval.js';
import { gapCommand, gapMergeCommand } from './gap.js';
import { maxflowCommand } from './maxflow.js';
import { multiclassFwCommand } from './multiclass-fw.js';
import { pathCommand } from './path.js';
import { plotCommand } from './plot.js';
import { predictCommand } from './predict.js';
import { prepareHorseCommand } from './prepare-horse.js';
import { readPipedInputs, runCommand, writesFiles } from './session.js';
import { demoCommand, trainCommand } from './train.js';
import { watchCommand } from './watch.js';

/** Every command, in the order of `gapbcfw help`. */
export const COMMANDS: readonly Command[] = [
  demoCommand,
  trainCommand,
  evalCommand,
  predictCommand,
  gapCommand,
  gapMergeCommand,
  pathCommand,
  plotCommand,
  watchCommand,
  prepareHorseCommand,
  multiclassFwCommand,
  maxflowCommand,
];

/** Commands of earlier versions, now generic ones: a one-line pointer. */
const REPLACED: Readonly<Record<string, string>> = {
  'train-horse': 'gapbcfw train horse:DIR (the same options; --lambda, --max-passes and --gap-threshold as you need them)',
  pose: 'gapbcfw train lsp:DIR, gapbcfw eval MODEL lsp:DIR and gapbcfw predict MODEL lsp:DIR --out-dir DIR',
  'align train': 'gapbcfw train alignment:DIR (--folds, --fold, --all, --cost-fp, --cost-fn as before)',
  'align eval': 'gapbcfw eval MODEL alignment:DIR',
};

/** The command called `name` (or aliased so). */
export function commandOf(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}

/** `gapbcfw help`: the commands and the data kinds. */
function overview(): string {
  const list = COMMANDS.map((c): [string, string] => [c.name + (c.aliases?.length ? ` (${c.aliases.join(', ')})` : ''), c.summary]);
  list.push(['help [COMMAND]', 'this text, or the options of a command (also: gapbcfw COMMAND --help)']);
  const data = Object.values(TASKS).map((t): [string, string] => [t.data, t.summary]);
  const models = Object.entries(TASKS_OF_MODEL).map(([kind, kinds]): [string, string] => [kind, kinds.map((k) => `${k}:`).join(', ')]);
  return [
    'gapbcfw: structured SVMs trained with block-coordinate Frank-Wolfe and the "Minding the Gaps" improvements',
    '',
    'Usage: gapbcfw <command> [arguments] [options]',
    '',
    'Commands:',
    columns(list),
    '',
    'Data sets (KIND:PATH; train, eval, gap, path and predict take every kind):',
    columns(data),
    '',
    'Model kinds and the data they train on:',
    columns(models),
    '',
    'Common: --json (the last stdout line is a JSON summary), --quiet (no progress), --help, --version',
    'Exit codes: 0 success, 1 the job failed, 2 bad usage or bad input; 130 / 143 / 129 after SIGINT / SIGTERM / SIGHUP.',
  ].join('\n');
}

/** `unknown command 'trian' (did you mean train? gapbcfw help lists them)`. */
function unknownCommand(name: string): string {
  const guess = didYouMean(name, COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]));
  return `unknown command '${name}' (${guess ? `did you mean ${guess}? ` : ''}gapbcfw help lists them)`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: readonly string[], io: Io = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
      const topic = name === 'help' ? rest[0] : undefined;
      if (topic === undefined) {
        io.stdout.write(`${overview()}\n`);
        return 0;
      }
      const c = commandOf(topic);
      if (!c) throw new UsageError(REPLACED[topic] ? `${topic} was replaced by ${REPLACED[topic]}` : unknownCommand(topic));
      io.stdout.write(`${commandHelp(c)}\n`);
      return 0;
    }
    if (name === '--version' || name === '-v') {
      io.stdout.write(`${version()}\n`);
      return 0;
    }
    const replaced = REPLACED[`${name} ${rest[0]}`] ?? REPLACED[name];
    if (replaced) throw new UsageError(`gapbcfw ${REPLACED[name] ? name : `${name} ${rest[0]}`} was replaced by ${replaced}`);
    const command = commandOf(name);
    if (!command) throw new UsageError(unknownCommand(name));
    const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    if (options.includes('--help') || options.includes('-h')) {
      io.stdout.write(`${commandHelp(command)}\n`);
      return 0;
    }
    if (options.includes('--version')) {
      io.stdout.write(`${version()}\n`);
      return 0;
    }
    const args = { ...parseArgs(command, rest), ...(name !== command.name ? { alias: name } : {}) };
    // --threads is process-wide (src/native/threads.ts): set for the command, then put back (main runs in-process in tests).
    const cap = threadCap();
    try {
      if (args.given.has('threads')) setThreads(value.number(args, 'threads'));
      return await runCommand(io, async () => {
        await readPipedInputs(args);
        return command.run(args, io);
      });
    } finally {
      setThreads(cap);
    }
  } catch (e) {
    return reportFailure(e, io);
  }
}

// Run when executed directly (node dist/src/cli/main.js, the `gapbcfw` bin, or tsx src/cli/main.ts).
const invoked = process.argv[1];
if (invoked !== undefined && import.meta.url === pathToFileURL(realpathSync(invoked)).href) {
  // A reader that went away (`gapbcfw predict ... | head -1`) is no error: stop quietly with the usual status, or,
  // when the command still has files to write (`train --trace - --out m.gbm | head`), drop what goes to stdout and
  // go on. Any other failure of stdout (`--json > /dev/full`, a full disk) ends the job with one line (exit 1).
  let stdoutGone = false;
  for (const [name, stream] of [['stdout', process.stdout], ['stderr', process.stderr]] as const) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (name === 'stdout' && stdoutGone) return; // writes after the reader left
      if (e.code === 'EPIPE' && name === 'stdout' && writesFiles()) {
        stdoutGone = true;
        process.stderr.write('gapbcfw: stdout: its reader closed it; nothing more is written there, the run goes on (EPIPE)\n');
        return;
      }
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      if (name === 'stdout') process.stderr.write(`gapbcfw: ${writeFailure(e, 'stdout').message}\n`);
      process.exit(1);
    });
  }
  process.exitCode = await main(process.argv.slice(2));
}
