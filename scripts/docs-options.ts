/**
 * Regenerates the settings tables of docs/options.md (between `<!-- settings:start -->` and `<!-- settings:end -->`,
 * and `<!-- mcfw-settings:start -->` / `<!-- mcfw-settings:end -->`) from the settings tables of the library
 * (src/solvers/settings.ts, src/multiclass-fw/settings.ts). test/docs.test.ts fails when the page is not current.
 *
 *   npx tsx scripts/docs-options.ts          # rewrite docs/options.md
 *   npx tsx scripts/docs-options.ts --check  # exit 1 when it is stale
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describeRange, type SettingSpec } from '../src/core/settings.js';
import { MCFW_SETTINGS } from '../src/multiclass-fw/settings.js';
import { SETTINGS } from '../src/solvers/settings.js';

const PAGE = fileURLToPath(new URL('../docs/options.md', import.meta.url));

/** The CLI form of a setting: `--flag X` (and its negation), or "(library only)". */
function flagCell(o: SettingSpec): string {
  const flags: string[] = [];
  if (o.flag) flags.push(`\`--${o.flag}${o.type === 'boolean' ? '' : ` ${o.value ?? 'X'}`}\``);
  if (o.negation) flags.push(`\`--${o.negation}\``);
  return flags.length ? flags.join(', ') : '(library only)';
}

/** What a setting does, with its accepted values and the solvers that take it. */
function whatCell(o: SettingSpec): string {
  const text = o.doc ?? o.help;
  const parts = [/[.)]$/.test(text) ? text : `${text}.`];
  if (o.type === 'number' || o.type === 'integer') parts.push(`Accepts ${describeRange(o)}.`);
  if (o.solvers) parts.push(`Taken by: ${o.solvers.map((s) => `\`${s}\``).join(', ')}.`);
  return parts.join(' ').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The tables of one settings table, a `## section` each. */
export function settingsMarkdown(table: readonly SettingSpec[], heading: '##' | '###' = '##'): string {
  const sections = [...new Set(table.map((o) => o.section))];
  return sections
    .map((section) => {
      const rows = table.filter((o) => o.section === section).map((o) => `| \`${o.key}\` | ${flagCell(o)} | ${o.default} | ${whatCell(o)} | ${o.paper ?? ''} |`);
      return [`${heading} ${section}`, '', '| library setting | CLI flag | default | what it does | paper |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
    })
    .join('\n\n');
}

/** The page with both generated blocks replaced. */
export function currentOptionsPage(page: string): string {
  const replace = (text: string, name: string, body: string) => {
    const start = `<!-- ${name}:start -->`;
    const end = `<!-- ${name}:end -->`;
    const a = text.indexOf(start);
    const b = text.indexOf(end);
    if (a < 0 || b < a) throw new Error(`docs/options.md lacks the markers ${start} ... ${end}`);
    return `${text.slice(0, a + start.length)}\n\n${body}\n\n${text.slice(b)}`;
  };
  return replace(replace(page, 'settings', settingsMarkdown(SETTINGS)), 'mcfw-settings', settingsMarkdown(MCFW_SETTINGS, '###'));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const page = readFileSync(PAGE, 'utf8');
  const next = currentOptionsPage(page);
  if (process.argv.includes('--check')) {
    if (next !== page) {
      console.error('docs/options.md is stale: run npx tsx scripts/docs-options.ts');
      process.exit(1);
    }
  } else writeFileSync(PAGE, next);
}
