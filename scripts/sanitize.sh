#!/usr/bin/env bash
# Every native entry point under AddressSanitizer + UndefinedBehaviorSanitizer, and the native fuzz
# targets for a fixed budget. Exit status 0 iff there was no sanitizer finding and nothing failed.
#
#   bash scripts/sanitize.sh [FUZZ_SECONDS]          (default 20 s per fuzz target)
#
# Steps (all output under tmp/sanitize/, which git ignores; ./build and ./prebuilds are never touched):
#  1. the plain C++ tests native/*/test_*.cc, each linked with the non-test sources of its folder,
#     built with -fsanitize=address,undefined -fno-sanitize-recover=undefined and run;
#  2. the fuzz targets native/maxflow/fuzz_maxflow.cc (via scripts/fuzz-maxflow.sh) and
#     native/gdt/fuzz_gdt.cc (brute-force oracle), FUZZ_SECONDS each. With clang + libFuzzer they are
#     coverage-guided; with g++ (Debian's default here) they run their stand-alone random/mutation driver;
#  3. the Node addon (native/binding/*.cc + every core source, as CMakeLists.txt globs them) built with the
#     same sanitizers into tmp/sanitize/addon/gapbcfw.node, then the native-facing vitest files run
#     against it: GAPBCFW_ADDON points src/native/addon.ts at that file and the ASan runtime is LD_PRELOADed
#     into node (node itself is not instrumented; leak detection is off because node never frees
#     everything at exit). A sanitizer report aborts the process (vitest then fails that file) and is
#     also written to tmp/sanitize/logs/, whose being non-empty fails this script on its own.
#
# Compiler: clang++ when present (then libFuzzer for the fuzz targets), else g++. Environment:
#   SANITIZE_CXX forces a compiler (e.g. g++), SANITIZE_JOBS (default nproc) parallel compiles,
#   SANITIZE_SKIP_ADDON=1 skips step 3, FUZZ_SEED (default 1) seeds the stand-alone drivers.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
budget="${1:-20}"
OUT="$ROOT/tmp/sanitize"
LOGS="$OUT/logs"
JOBS="${SANITIZE_JOBS:-$(nproc)}"
rm -rf "$LOGS"
mkdir -p "$OUT/bin" "$LOGS"

CXX="${SANITIZE_CXX:-}"
if [[ -z "$CXX" ]]; then
  for c in clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14 g++; do
    if command -v "$c" >/dev/null 2>&1; then CXX="$c"; break; fi
  done
fi
[[ -n "$CXX" ]] || { echo "sanitize: no C++ compiler (clang++ or g++)" >&2; exit 1; }
SAN=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:log_path=$LOGS/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$LOGS/ubsan"
t() { date +%s; }
T0=$(t)
echo "sanitize: $($CXX --version | head -n1), -fsanitize=address,undefined, fuzz budget ${budget} s per target"

findings() {
  if compgen -G "$LOGS/*" >/dev/null; then
    echo "sanitize: sanitizer reports:" >&2
    for f in "$LOGS"/*; do echo "--- $f" >&2; head -n 60 "$f" >&2; done
    return 1
  fi
}

# --- 1. plain C++ tests --------------------------------------------------------------------------------------
t1=$(t)
ntests=0
for test in native/*/test_*.cc; do
  dir=$(dirname "$test")
  name=$(basename "$test" .cc)
  srcs=("$test")
  for s in "$dir"/*.cc; do
    case "$(basename "$s")" in test_* | bench_* | fuzz_*) ;; *) srcs+=("$s") ;; esac
  done
  # sources of other folders that the test names on a "// link:" line
  read -r -a linked <<<"$(sed -n 's|^// link: ||p' "$test" | head -n 1)"
  srcs+=("${linked[@]}")
  "$CXX" -std=c++17 -g -O1 "${SAN[@]}" -Wall -Wextra -Inative "${srcs[@]}" -o "$OUT/bin/$name"
  echo "sanitize: running $name"
  "$OUT/bin/$name" >"$OUT/bin/$name.out" 2>&1 || { cat "$OUT/bin/$name.out" >&2; echo "sanitize: $name failed" >&2; exit 1; }
  tail -n 1 "$OUT/bin/$name.out"
  ntests=$((ntests + 1))
done
findings
echo "sanitize: $ntests native test programs passed ($(($(t) - t1)) s)"

# --- 2. fuzz targets -----------------------------------------------------------------------------------------
t2=$(t)
echo "sanitize: fuzz_maxflow for ${budget} s"
# fuzz-maxflow.sh sets its own ASAN/UBSAN options for the libFuzzer build; keep our log paths.
# Its output (libFuzzer prints a line per new corpus unit) goes to a log; the tail is shown, all of it on failure.
quiet() {
  local log="$1"
  shift
  if "$@" >"$log" 2>&1; then
    grep -E '^(fuzz[-_]|Done |stat::number_of_executed_units|stat::new_units_added)' "$log" | tail -n 6
  else
    tail -n 80 "$log" >&2
    echo "sanitize: $* failed (log: $log)" >&2
    return 1
  fi
}
quiet "$OUT/fuzz-maxflow.log" bash scripts/fuzz-maxflow.sh "$budget" "$OUT/fuzz-maxflow"
echo "sanitize: fuzz_gdt for ${budget} s"
if [[ "$CXX" == clang* ]] && echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
    "$CXX" -x c++ -fsanitize=fuzzer - -o "$OUT/bin/probe" >/dev/null 2>&1; then
  mkdir -p "$OUT/fuzz-gdt/corpus"
  "$CXX" -std=c++17 -g -O1 -fsanitize=fuzzer "${SAN[@]}" -Inative native/gdt/fuzz_gdt.cc native/gdt/gdt.cc -o "$OUT/bin/fuzz_gdt"
  echo "fuzz_gdt: libFuzzer build with $CXX"
  quiet "$OUT/fuzz-gdt.log" "$OUT/bin/fuzz_gdt" -max_total_time="$budget" -max_len=1024 -print_final_stats=1 \
    -artifact_prefix="$OUT/fuzz-gdt/" "$OUT/fuzz-gdt/corpus"
else
  echo "fuzz_gdt: no libFuzzer; $CXX build with the stand-alone random driver"
  "$CXX" -std=c++17 -g -O1 "${SAN[@]}" -Wall -Wextra -DGAPBCFW_FUZZ_MAIN -Inative native/gdt/fuzz_gdt.cc native/gdt/gdt.cc -o "$OUT/bin/fuzz_gdt"
  quiet "$OUT/fuzz-gdt.log" "$OUT/bin/fuzz_gdt" --seconds "$budget" --seed "${FUZZ_SEED:-1}"
fi
findings
echo "sanitize: fuzz targets clean ($(($(t) - t2)) s)"

if [[ "${SANITIZE_SKIP_ADDON:-0}" == 1 ]]; then
  echo "sanitize: done without the addon step (SANITIZE_SKIP_ADDON=1), $(($(t) - T0)) s"
  exit 0
fi

# --- 3. the Node addon under ASan + UBSan --------------------------------------------------------------------
t3=$(t)
core=()
for s in native/*/*.cc; do
  case "$(basename "$s")" in test_* | bench_* | fuzz_*) ;; *) core+=("$s") ;; esac
done
INC=(-Inative -I"$ROOT/node_modules/node-api-headers/include" -I"$ROOT/node_modules/node-addon-api")
DEFS=(-DNAPI_VERSION=8 -DNAPI_CPP_EXCEPTIONS -DNODE_ADDON_API_CPP_EXCEPTIONS_ALL)
OBJ="$OUT/addon/obj-$(basename "$CXX")"  # per compiler: objects are reused while their sources are unchanged
mkdir -p "$OBJ"
# Compile in parallel (make-like: rebuild an object only when its source or a header is newer).
objs=()
pids=()
newest_header=$(find native -name '*.h' -printf '%T@\n' | sort -n | tail -n 1)
for s in "${core[@]}"; do
  o="$OBJ/$(echo "$s" | tr '/' '_').o"
  objs+=("$o")
  if [[ -f "$o" ]] && [[ "$o" -nt "$s" ]] && awk -v h="$newest_header" -v m="$(stat -c %Y "$o")" 'BEGIN { exit !(m >= h) }'; then continue; fi
  "$CXX" -std=c++17 -g -O1 "${SAN[@]}" -Wno-pass-failed -fPIC -fopenmp-simd -fvisibility=hidden "${DEFS[@]}" "${INC[@]}" -c "$s" -o "$o" &
  pids+=($!)
  if ((${#pids[@]} >= JOBS)); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
"$CXX" -shared "${SAN[@]}" -pthread "${objs[@]}" -o "$OUT/addon/gapbcfw.node" 2>&1 | grep -v 'loop not vectorized' || true
[[ -f "$OUT/addon/gapbcfw.node" ]] || { echo "sanitize: addon link failed" >&2; exit 1; }
echo "sanitize: built $OUT/addon/gapbcfw.node ($(($(t) - t3)) s)"

if [[ "$CXX" == clang* ]]; then
  ASAN_RT=$("$CXX" -print-file-name=libclang_rt.asan-x86_64.so)
else
  ASAN_RT=$("$CXX" -print-file-name=libasan.so)
fi
[[ -f "$ASAN_RT" ]] || { echo "sanitize: ASan runtime not found ($ASAN_RT)" >&2; exit 1; }

# The native-facing test files: everything that calls into the addon.
# (test/native-core and test/native-maxflow only compile the C++ tests of step 1 with g++: not repeated.)
NATIVE_TESTS=(
  test/maxflow.test.ts test/gdt.test.ts
  test/slic.test.ts test/hog.test.ts test/chain.test.ts test/batch.test.ts test/pose.test.ts test/pose-types.test.ts test/kernels.test.ts
  test/bad-inputs.test.ts test/determinism.test.ts test/engine.test.ts test/segmentation.test.ts test/multiclass.test.ts
  test/bounds.test.ts test/native-steps.test.ts
)
present=()
for f in "${NATIVE_TESTS[@]}"; do [[ -f "$f" ]] && present+=("$f"); done
san_env=(GAPBCFW_ADDON="$OUT/addon/gapbcfw.node" LD_PRELOAD="$ASAN_RT"
  ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0:allow_user_segv_handler=1:detect_odr_violation=0")
# The tests must really run on the sanitized addon: check that src/native/addon.ts maps it.
env "${san_env[@]}" npx tsx -e "import('./src/native/addon.ts').then(({ native }) => {
  native.version();
  const maps = require('fs').readFileSync('/proc/self/maps', 'utf8');
  if (!maps.includes('$OUT/addon/gapbcfw.node') || !/lib(clang_rt\.)?asan/.test(maps)) { console.error('sanitize: the sanitized addon is not the one loaded'); process.exit(1); }
  console.log('sanitize: node loads ' + process.env.GAPBCFW_ADDON + ' with the ASan runtime');
})"
t4=$(t)
echo "sanitize: vitest under ASan/UBSan: ${present[*]}"
set +e
env "${san_env[@]}" npx vitest run "${present[@]}"
status=$?
set -e
findings || status=1
echo "sanitize: vitest under sanitizers exit $status ($(($(t) - t4)) s); total $(($(t) - T0)) s"
exit $status
