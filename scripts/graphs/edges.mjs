#!/usr/bin/env node
// Rewrites the edges of a `graph:` JSON Lines file (docs/models/graphs.md), for comparing graph structures over the
// same nodes: `file` keeps the file's edges, `chain` replaces them by the edges between neighbouring nodes (i, i+1),
// `file+chain` adds those to the file's (each pair once; the file's own orientation kept). Edge features are dropped
// when the edges change (a new edge has none). Every other key is copied.
//   node scripts/graphs/edges.mjs IN.jsonl OUT.jsonl --edges file|chain|file+chain
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output, flag, mode] = process.argv.slice(2);
const MODES = ['file', 'chain', 'file+chain'];
if (!input || !output || flag !== '--edges' || !MODES.includes(mode)) {
  process.stderr.write('usage: node scripts/graphs/edges.mjs IN.jsonl OUT.jsonl --edges file|chain|file+chain\n');
  process.exit(2);
}
const lines = [];
let lineNo = 0;
for (const line of readFileSync(input, 'utf8').split('\n')) {
  lineNo++;
  if (line.trim() === '') continue;
  let example;
  try {
    example = JSON.parse(line);
  } catch (e) {
    process.stderr.write(`${input}:${lineNo}: not JSON (${e.message})\n`);
    process.exit(2);
  }
  const n = Array.isArray(example.nodes) ? example.nodes.length : 0;
  if (mode !== 'file') {
    const own = mode === 'file+chain' && Array.isArray(example.edges) ? example.edges : [];
    const seen = new Set(own.map(([u, v]) => `${Math.min(u, v)},${Math.max(u, v)}`));
    const chain = [];
    for (let i = 0; i + 1 < n; i++) if (!seen.has(`${i},${i + 1}`)) chain.push([i, i + 1]);
    example.edges = [...own, ...chain];
    delete example.edgeFeatures;
  }
  lines.push(JSON.stringify(example));
}
writeFileSync(output, `${lines.join('\n')}\n`);
process.stderr.write(`${output}: ${lines.length} graphs, edges: ${mode}\n`);
