#!/usr/bin/env bash
# A sweep of bad inputs through the built CLI (npm run build:ts first): every data kind given a folder, an empty
# file, random binary bytes, a missing file and /dev/null; every file-reading command given the same; gzip and BOM
# inputs that must work; the aliases given models of other tasks; options without effect; a DIMACS header far
# beyond its file. Each case must exit with its expected status and, when refused, one stderr line "gapbcfw: ..."
# with no stack trace and no control or binary bytes. Prints the failing cases and "cases N, fine N, failing N".
#
#   bash scripts/sweep-bad-inputs.sh
R=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd); G=$R/test/fixtures/bad/good; CLI="node $R/dist/src/cli/main.js"
T=$(mktemp -d); cd $T
mkdir adir; : > empty; head -c 4000 /dev/urandom > binary; printf 'p max 4 2\nn 1 s\nn 4 t\na 1 2 5\na 2 4 3\n' | gzip > g.max.gz
gzip -c $G/libsvm.txt > svm.gz; printf '\xef\xbb\xbf' > bom; cat $G/libsvm.txt >> bom
ok=0; bad=0; n=0
check() { # expected-status args...
  local want=$1; shift; n=$((n+1))
  out=$(timeout 60 $CLI "$@" 2>err >/dev/null; echo $?); got=$out
  lines=$(wc -l < err); first=$(head -1 err)
  if [[ $got == $want ]] && { [[ $want == 0 ]] || { [[ $lines == 1 ]] && [[ $first == gapbcfw:* ]] && ! grep -qP '[\x00-\x08\x0e-\x1f\x7f-\xff]|^\s+at ' err; }; }; then ok=$((ok+1)); else bad=$((bad+1)); echo "FAIL ($got, want $want): $* :: $(head -c 300 err)"; fi
}
for kind in ocr libsvm conll idx lsp alignment horse; do
  for p in adir empty binary nothere /dev/null; do check 2 train $kind:$p --max-passes 1 --quiet; done
done
for p in adir empty binary nothere; do check 2 eval $p libsvm:$G/libsvm.txt; check 2 maxflow $p; check 2 plot $p --out x.svg; check 2 gap-merge $p; check 2 predict $G/conll-model.gbm $p; check 2 train libsvm:$G/libsvm.txt --resume $p --quiet; done
check 0 maxflow g.max.gz; check 0 train libsvm:svm.gz --max-passes 1 --quiet; check 0 train libsvm:bom --max-passes 1 --quiet
check 2 align $G/conll-model.gbm $G/align-pairs.txt; check 2 tag $G/align-model.gbm $G/conll.txt
check 2 path synthetic: --grid --kappa 0.5; check 2 path synthetic: --grid --heuristic; check 2 path synthetic: --warm-start none; check 2 path synthetic: --solver fw
check 2 train synthetic: --overlap --batch 1; check 2 train synthetic: --checkpoint-every 3; check 2 train synthetic: --backend js --gpu-mode cpu
check 2 prepare-horse --merge --out x --limit 3; check 2 prepare-horse --out x --allow-incomplete
$CLI train synthetic: --max-passes 2 --trace t.jsonl --quiet >/dev/null; check 2 plot t.jsonl --x lambda --y gap --out y.svg
check 2 plot t.jsonl --x lambda --optimum 1
printf 'p max 2000000000 1\nn 1 s\nn 2 t\na 1 2 1\n' > huge.max; check 2 maxflow huge.max
echo "cases $n, fine $ok, failing $bad"
rm -rf $T
