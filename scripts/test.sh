#!/usr/bin/env bash
# Run the whole test suite, setting everything up first on a fresh machine (idempotent).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh test/world -x`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh" 2> >(grep -v "^WARNING: Location" >&2)
cd "$ROOT"
exec "$ROOT/.venv/bin/python" -m pytest "$@"
