#!/usr/bin/env bash
# Installs what is missing, builds the release preset's tool and Python module and runs `impact demo`,
# which also draws its scenes as PNG pictures into build/pictures/ (docs/render.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target impact_cli impact_python
./build/release/apps/impact/impact demo --pictures build/pictures "$@"
