/**
 * A prepared horse folder (`gapbcfw prepare-horse`, docs/horse-format.md) as `graph:` JSON Lines
 * (docs/models/graphs.md): OUT/train.jsonl and OUT/test.jsonl, the folder's own split, one superpixel graph per line
 * with its unary features as sparse node rows, its pairwise features as edge features, its labels (0 background,
 * 1 horse) and its superpixel areas as node weights.
 *
 *   npx tsx scripts/graphs/horse-to-graph.ts HORSE_DIR OUT_DIR
 *   npx gapbcfw train graph:OUT_DIR/train.jsonl --test graph:OUT_DIR/test.jsonl --loss balanced --lambda 10
 *
 * is then the horse model: `graph:`'s two-label Potts model with positivity, the class-normalised area-weighted
 * loss and the cut oracle. The unary features are written multiplied by sqrt(2): the horse model scores node i
 * -(2 y_i - 1) <f_i, w_U> with one weight vector, `graph:` <g_i, w_(y_i)> with one per label. With g = sqrt(2) f and
 * w_1 = -w_0 = -w_U / sqrt(2) both give every labelling the same score, and ||w_0||^2 + ||w_1||^2 = ||w_U||^2; psi
 * keeps w_0 + w_1 = 0 at every iterate, so the two problems are the same at every lambda, up to rounding.
 */
import { mkdirSync, createWriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { HorseDataset } from '../../src/data/horse.js';

/** Writes OUT/train.jsonl and OUT/test.jsonl from the prepared horse folder `dir`; returns the graphs per part. */
export async function horseToGraph(dir: string, out: string): Promise<{ train: number; test: number }> {
  const data = new HorseDataset(dir);
  const { dUnary, dPairwise } = data.meta;
  mkdirSync(out, { recursive: true });
  // A float32 value times sqrt(2), in the shortest decimal that graph: reads back as that float32.
  const scaled = (v: number) => Number(Math.fround(v * Math.SQRT2).toPrecision(9));
  const counts = { train: 0, test: 0 };
  for (const split of ['train', 'test'] as const) {
    const stream = createWriteStream(join(out, `${split}.jsonl`));
    for (const k of data.indices(split)) {
      const rec = data.read(k);
      const g = rec.graph;
      const nodes = Array.from({ length: g.numNodes }, (_, i) => {
        const row = g.unary.subarray(i * dUnary, (i + 1) * dUnary);
        const at: number[] = [];
        row.forEach((v, j) => v !== 0 && at.push(j));
        return { indices: at, values: at.map((j) => scaled(row[j]!)) };
      });
      const edges = Array.from(g.edgeFrom, (u, e) => [u, g.edgeTo[e]!]);
      const edgeFeatures = Array.from({ length: g.edgeFrom.length }, (_, e) => Array.from(g.pairwise.subarray(e * dPairwise, (e + 1) * dPairwise), (v) => Number(v.toPrecision(9))));
      const line = JSON.stringify({ name: rec.name, nodes, edges, edgeFeatures, labels: Array.from(rec.labels), weights: Array.from(g.areas) });
      if (!stream.write(`${line}\n`)) await once(stream, 'drain');
      counts[split]++;
    }
    stream.end();
    await once(stream, 'finish');
  }
  return counts;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, out] = process.argv.slice(2);
  if (!dir || !out) {
    process.stderr.write('usage: npx tsx scripts/graphs/horse-to-graph.ts HORSE_DIR OUT_DIR\n');
    process.exit(2);
  }
  const counts = await horseToGraph(dir, out);
  process.stderr.write(`${out}: ${counts.train} train and ${counts.test} test graphs\n`);
}
