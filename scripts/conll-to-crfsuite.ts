/**
 * Writes a CoNLL-2000 file (WORD POS CHUNK) in CRFsuite's attribute format with exactly the attributes of `conll:`
 * (src/data/conll-features.ts: Sha & Pereira's 20 templates), so that `train seq:OUT` and `train conll:IN` see the
 * same features (docs/models/sequences.md). A `:` or `\` in an attribute is escaped as `\:` or `\\`.
 *
 *   npx tsx scripts/conll-to-crfsuite.ts IN.txt [OUT.crf]      (stdout without OUT)
 */
import { createWriteStream } from 'node:fs';
import { loadConll } from '../src/data/conll.js';
import { conllAttributes } from '../src/data/conll-features.js';
import { formatAttributeLine } from '../src/data/seq.js';

const [input, output] = process.argv.slice(2);
if (input === undefined) {
  process.stderr.write('usage: npx tsx scripts/conll-to-crfsuite.ts IN.txt [OUT.crf]\n');
  process.exit(2);
}
const out = output === undefined ? process.stdout : createWriteStream(output);
try {
  for (const s of loadConll(input)) {
    const lines = conllAttributes(s.words, s.pos).map((attrs, t) => formatAttributeLine(s.chunks![t]!, attrs));
    if (!out.write(`${lines.join('\n')}\n\n`)) await new Promise((resolve) => out.once('drain', resolve));
  }
  out.end();
} catch (e) {
  process.stderr.write(`conll-to-crfsuite: ${(e as Error).message}\n`);
  process.exit(1);
}
