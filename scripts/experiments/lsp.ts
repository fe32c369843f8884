/**
 * LSP pose figures (issue 9): trains the pictorial-structures model (HOG part filters + quadratic
 * deformations, GDT max-sum oracle) with BCFW on LSP-small (or the 1000-image training set) through the
 * generic `gapbcfw train lsp:DIR` and reports test PCP / PCK / loss against the mean-pose baseline. One JSON
 * object per lambda on stdout, progress on stderr.
 *
 *   npx tsx scripts/experiments/lsp.ts --split small --lambdas 0.01 --max-passes 30 --test-limit 1000
 *
 * Data: $GAPBCFW_DATA/lsp or ../shared/data/lsp (src/data/paths.ts).
 */
import { parseArgs } from 'node:util';
import { main } from '../../src/cli/main.js';
import { dataPath } from '../../src/data/paths.js';

const { values } = parseArgs({
  options: {
    split: { type: 'string', default: 'small' },
    lambdas: { type: 'string', default: '0.01' },
    'max-passes': { type: 'string', default: '30' },
    'gap-threshold': { type: 'string', default: '0.001' },
    'test-limit': { type: 'string', default: '1000' },
    sbin: { type: 'string', default: '4' },
  },
});
for (const lambda of values.lambdas.split(',')) {
  const code = await main(['train', `lsp:${dataPath('lsp')}`, '--split', values.split, '--lambda', lambda, '--max-passes', values['max-passes'], '--gap-threshold', values['gap-threshold'], '--test-limit', values['test-limit'], '--sbin', values.sbin, '--json']);
  if (code !== 0) process.exit(code);
}
