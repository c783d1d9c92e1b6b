#!/usr/bin/env bash
# Lint and type-check llm_planner/, build the docs, then run the whole test suite, setting
# everything up first on a fresh machine (idempotent).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh test/world -x`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh" 2> >(grep -v "^WARNING: Location" >&2)
cd "$ROOT"
# Lint, import order and types of the package (ruff.toml, mypy.ini); any finding fails the run.
# Seconds with the caches in .cache/ (a fresh clone's first mypy run analyses the libraries once).
"$ROOT/.venv/bin/ruff" check llm_planner llm_planner_ros llm_planner_eval
"$ROOT/.venv/bin/mypy" llm_planner llm_planner_ros llm_planner_eval
# The documentation site (mkdocs.yml, docs/) into site/: a broken link or anchor fails the run.
# Not --quiet: it hides the warnings that --strict counts, and the build then passes.
NO_MKDOCS_2_WARNING=1 "$ROOT/.venv/bin/mkdocs" build --strict --site-dir "$ROOT/site"
exec "$ROOT/.venv/bin/python" -m pytest "$@"
