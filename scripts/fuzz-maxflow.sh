#!/usr/bin/env bash
# Fuzzes native/maxflow (FlowGraph + DIMACS reader/writer) for a fixed time budget with
# AddressSanitizer and UBSan; see native/maxflow/fuzz_maxflow.cc for what each input exercises.
#
#   bash scripts/fuzz-maxflow.sh [SECONDS] [OUT_DIR]      (default 60 s, build/fuzz-maxflow)
#
# With clang and libFuzzer (Debian: apt-get install clang-14 libclang-rt-14-dev) it runs the
# coverage-guided libFuzzer build (-fsanitize=fuzzer,address,undefined) on a corpus in OUT_DIR
# seeded with small DIMACS files; crashing inputs are saved there as crash-*. Otherwise it builds
# the same target with g++ and its stand-alone random/mutation driver (no coverage feedback).
# Exit status 0 iff no input failed.
set -euo pipefail
cd "$(dirname "$0")/.."
budget="${1:-60}"
out="${2:-build/fuzz-maxflow}"
mkdir -p "$out/corpus"
srcs=(native/maxflow/fuzz_maxflow.cc native/maxflow/flow_graph.cc native/maxflow/any_graph.cc native/maxflow/batch.cc native/maxflow/dimacs.cc)
san=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)

clang=""
for c in clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14; do
  if command -v "$c" >/dev/null 2>&1; then clang="$c"; break; fi
done

if [ -n "$clang" ] && echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
    "$clang" -x c++ -fsanitize=fuzzer - -o "$out/probe" >/dev/null 2>&1; then
  echo "fuzz-maxflow: libFuzzer build with $clang" >&2
  "$clang" -std=c++17 -g -O1 -fsanitize=fuzzer "${san[@]}" -Inative "${srcs[@]}" -o "$out/fuzz_maxflow"
  # Seeds: DIMACS files (first byte even) and one graph script (first byte odd).
  printf '\0p max 6 10\nn 1 s\nn 6 t\na 1 2 16\na 1 3 13\na 2 3 10\na 3 2 4\na 2 4 12\na 4 3 9\na 3 5 14\na 5 4 7\na 4 6 20\na 5 6 4\n' > "$out/corpus/seed-clrs"
  printf '\0c x\np max 4 6\nn 1 s\nn 4 t\na 1 2 3\na 1 3 2.5\na 2 3 1\na 3 2 1\na 2 4 2\na 3 4 3\n' > "$out/corpus/seed-double"
  printf '\001\001\011\014\001\002\003\004\002\003\005\006\003\004\007\010\000\001\002\003\001\005\006\000\003\001\007\000' > "$out/corpus/seed-graph"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$out/fuzz_maxflow" -max_total_time="$budget" -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$out/" "$out/corpus"
else
  echo "fuzz-maxflow: no clang with libFuzzer; g++ build with the stand-alone driver" >&2
  g++ -std=c++17 -g -O1 "${san[@]}" -DGAPBCFW_FUZZ_MAIN -Inative "${srcs[@]}" -o "$out/fuzz_maxflow_standalone"
  UBSAN_OPTIONS=print_stacktrace=1 "$out/fuzz_maxflow_standalone" --seconds "$budget" --seed "${FUZZ_SEED:-1}"
fi
