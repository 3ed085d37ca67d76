#!/usr/bin/env bash
# Installs what is missing, then builds and runs every test: the release build (unit, property,
# regression, protocol and conformance tests, and a build of the benchmarks) and the same
# tests under AddressSanitizer + UndefinedBehaviorSanitizer (preset asan), then every libFuzzer
# target of tests/fuzz on a fixed seeded set of inputs under ASan + UBSan (scripts/fuzz.sh; the
# preset asan builds them on the same library, instrumented for libFuzzer's coverage).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
for preset in release asan; do
  echo "== preset $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done
echo "== fuzz targets (preset asan)"
FUZZ_BUILD=build/asan scripts/fuzz.sh
