// A vitest reporter that ends the run with why tests were skipped: one line per reason (test/helpers/skips.ts, or a
// note given to the test context's skip()), with the number of tests and their files. Skips with no reason are
// listed too, so that a silent skip shows up.
import type { Reporter, TestCase, TestModule, TestSuite, Vitest } from 'vitest/node';

function reasonOf(test: TestCase, filtered: boolean): string {
  const note = test.result().note;
  if (note) return note;
  for (let at: TestCase | TestSuite | TestModule = test; ; at = at.parent) {
    const reason = at.meta().skipReason;
    if (reason) return reason;
    if (at.type === 'module') return filtered ? 'left out by the name filter (-t)' : 'no reason given';
  }
}

export default class SkipReasons implements Reporter {
  private filtered = false;

  onInit(vitest: Vitest): void {
    this.filtered = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(modules: readonly TestModule[]): void {
    const byReason = new Map<string, { count: number; files: Set<string> }>();
    for (const module of modules) {
      for (const test of module.children.allTests('skipped')) {
        const reason = reasonOf(test, this.filtered);
        const entry = byReason.get(reason) ?? { count: 0, files: new Set<string>() };
        entry.count++;
        entry.files.add(module.relativeModuleId);
        byReason.set(reason, entry);
      }
    }
    if (byReason.size === 0) return;
    const total = [...byReason.values()].reduce((s, e) => s + e.count, 0);
    const lines = [`\nSkipped ${total} test${total === 1 ? '' : 's'}:`];
    for (const [reason, { count, files }] of [...byReason].sort((a, b) => b[1].count - a[1].count)) {
      lines.push(`  ${count} ${reason} (${[...files].sort().join(', ')})`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
