#!/usr/bin/env bash
# A/B of two builds of impact_bench on a machine whose speed drifts: runs BIN_A then BIN_B on the
# benchmarks FILTER selects, ROUNDS times alternately (three repetitions each), and prints each
# median's name and last column (ns_per_ray for the batches, the time for single queries).
# Compare ratios to a peer measured in the same run (put the peer in FILTER), not raw figures.
#   cp build/release/bench/impact_bench /tmp/before   # before the change; rebuild after it, then
#   bench/ab.sh /tmp/before build/release/bench/impact_bench 'mesh_ray_batch/level_1m_camera/(impact|embree/stream)/threads:1' 3
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 BIN_A BIN_B FILTER [ROUNDS]" >&2
  exit 2
fi
a=$1 b=$2 filter=$3 rounds=${4:-3}
for r in $(seq "$rounds"); do
  for bin in "$a" "$b"; do
    "$bin" --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null |
      awk -v round="$r" -v b="$bin" '/_median/ {print round, b, $1, $NF}'
  done
done
