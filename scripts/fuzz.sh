#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz from a copy of its seed corpus
# (tests/fuzz/corpus/<target>; the repository is never written), two at a time. Fails on any
# finding: a crash, a sanitizer report, a broken invariant (the targets trap), a timeout or an
# out-of-memory. The input that failed is kept in <build>/findings/.
#
# By default each target runs a fixed number of inputs from a fixed seed, 10-50 s each on one
# core: the same budget on every machine (a time budget explored further on a faster machine, and
# CI once failed on an input a slower run had not reached). Not the same inputs: libFuzzer steers
# by coverage and compared values, which a rebuilt library or another CPU (run-time dispatch in
# libm and the mesh code) changes; tests/fuzz/README.md. To explore, give a time instead:
#   FUZZ_SECONDS   time per target (explore: the inputs depend on the machine's speed)
#   FUZZ_SEED      seed (default 16)
#   FUZZ_JOBS      targets run at once (default 2)
#   FUZZ_TARGETS   which targets (default: all)
#   FUZZ_BUILD     the build tree holding them (default build/asan: the tests' ASan + UBSan library
#                  at -O1, instrumented; build/fuzz: the preset that builds the targets alone)
# Build first: cmake --preset asan && cmake --build --preset asan (or the same with fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${FUZZ_SEED:-16}
jobs=${FUZZ_JOBS:-2}
targets=(${FUZZ_TARGETS:-json_lines distance ray_cast shape_cast time_of_impact mesh level world})
# Inputs per target in the fixed mode: about 10-50 s each on one core under ASan + UBSan with the
# preset asan's -O1 library (103 s for all eight, two at a time; four times the inputs the -O0
# library of the preset fuzz ran in 201 s, 2026-11-27). level: 240,000 until 2026-11-28, when
# exact crossings (detail::plane_side_at, whose expansion is quadratic in its 240 components)
# made its adversarial planes slower: 240,000 took 254 s; 120,000 keep it near 2 minutes.
declare -A runs=([json_lines]=8000 [distance]=16000 [ray_cast]=48000 [shape_cast]=20000 [time_of_impact]=28000
                 [mesh]=40000 [level]=120000 [world]=32000)
build=${FUZZ_BUILD:-build/asan}
bin=$build/tests/fuzz
findings=$build/findings
mkdir -p "$findings"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run_one() {
  local t=$1
  mkdir -p "$work/$t/corpus"
  cp tests/fuzz/corpus/"$t"/* "$work/$t/corpus/"
  # -timeout: one input may take at most 10 s (a hang); -rss_limit_mb: 2 GB; the seeded run is
  # reproducible for a given corpus and seed.
  local budget
  if [[ -n "${FUZZ_SECONDS:-}" ]]; then budget=(-max_total_time="$FUZZ_SECONDS"); else budget=(-runs="${runs[$t]}"); fi
  local start=$SECONDS
  if "$bin/fuzz_$t" -seed="$seed" "${budget[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
       -print_final_stats=1 -artifact_prefix="$findings/$t-" "$work/$t/corpus" >"$work/$t.log" 2>&1; then
    echo "fuzz_$t: ok ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$t.log" | grep -o '[0-9]*$') runs in $((SECONDS - start)) s)"
  else
    echo "fuzz_$t: FAILED"
    tail -n 60 "$work/$t.log"
    return 1
  fi
}

status=0
pids=()
names=()
for t in "${targets[@]}"; do
  run_one "$t" > "$work/$t.out" 2>&1 &
  pids+=($!)
  names+=("$t")
  if ((${#pids[@]} >= jobs)); then
    if ! wait "${pids[0]}"; then status=1; fi
    cat "$work/${names[0]}.out"
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then status=1; fi
  cat "$work/${names[$i]}.out"
done
if ((status)); then echo "fuzz: findings kept in $findings (reproduce: $bin/fuzz_<target> <file>)"; fi
exit $status
