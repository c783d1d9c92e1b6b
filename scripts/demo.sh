#!/usr/bin/env bash
# Run the demo, setting everything up first on a fresh machine (idempotent).
# Usage: bash scripts/demo.sh ["DIRECTIVE"] [--planner P] [--approve] [--answer TEXT]
#   --approve: the planner asks "May I ...?" before the robot moves; answer yes/no on the terminal
#   (or with --answer yes); a directive such as "put the mug on the table" asks which table the same way
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh" 2> >(grep -v "^WARNING: Location" >&2)
cd "$ROOT"
exec "$ROOT/.venv/bin/llm-planner" demo "$@"
