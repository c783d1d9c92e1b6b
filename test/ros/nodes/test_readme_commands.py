"""Every ``llm-planner`` command line the README and the docs pages show runs as written (or, where
it runs for minutes or needs what a test machine lacks, is at least a valid command line).

The lines are read from the code blocks of README.md and docs/**/*.md at test time, so an edit of
either is tested as it is; a line both show runs once. Each line runs in a scratch folder with a
copy of the package's ``config``, so relative paths such as
``config/scenes/examples/five_rooms.yaml`` mean what they mean in a checkout. Lines that
talk to the node graph run against one graph launched for the module, whose default planner is
``classical`` (a short input: whole plans in a second instead of LLM-MCTS's searches).

What is not run, and why, is in SKIPPED; those lines are parsed by the CLI's own argument parser
(a renamed option or a bad choice fails), and ``llm-planner launch`` lines run with ``--print``,
which evaluates the launch file with their launch arguments.
"""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from llm_planner.paths import config_dir

pytestmark = [pytest.mark.ros, pytest.mark.slow]
VENV_BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[3]
#: README.md and the documentation site's pages, where the README's guides and results live
SOURCES = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
GRAPH_COMMANDS = ("plan", "cancel", "status", "say", "answer")

#: (what a line contains, why it is not run); the first that matches applies.
SKIPPED = (
    ("--local-model", "starts the real SmolLM2 model server (test/nodes/test_real_model.py runs it)"),
    ("smol.yaml", "needs the client configuration the real model server writes (test/nodes/test_real_model.py)"),
    ("--ray", "starts Ray or needs a cluster, and runs the benchmark at the seed's size (hours)"),
    (" serve ", "serves until Ctrl-C (test/llm/ tests start and stop it)"),
    ("llm-planner web", "serves the page until Ctrl-C (test/ros/nodes/test_web.py runs it with two browsers)"),
    ("llm-planner voice", "listens to a microphone or to recordings (test/nodes/test_voice.py speaks to it)"),
    ("127.0.0.1:8000", "needs `llm-planner serve --port 8000` running in another terminal"),
    (" train ", "trains the SayCanPay models for minutes on the CPU"),
    (" demo", "launches its own graph and executes a task with LLM-MCTS (test/nodes/test_demo.py runs it)"),
    (" --run ", "runs a whole task offline with LLM-MCTS or STaLM, then draws it (minutes on 2 shared cores)"),
    (" launch", "runs the graph until Ctrl-C (run here with --print; the launched graph is tested elsewhere)"),
    ("_error_profiles.png", "draws the results files of the two benchmark runs before it"),
    ("--list-tasks", ""),  # runs: it only lists the tasks
    (" bench ", "runs a benchmark for minutes (the bench tests run each with small sizes)"),
    (" mcp", "serves MCP to a client until it leaves (test/ros/nodes/test_mcp.py drives it with the SDK's clients)"),
    ("check-robot", "checks a robot, failing where there is none (test/ros/nodes/test_robot.py and "
                    "test_own_robot.py run it against the simulator, without it, and against the guide's robot)"),
)


def readme_commands() -> list[str]:
    """The ``llm-planner`` command lines of the code blocks of SOURCES, continuation lines joined."""
    lines: list[str] = []
    text = "\n".join(source.read_text() for source in SOURCES)
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.strip().removeprefix("$ ")
            words = shlex.split(line, comments=True) if "llm-planner " in line else []
            command = [w for w in words if not re.fullmatch(r"[A-Z_]+=\S*", w)]
            if command and command[0] == "llm-planner" and line not in lines:
                lines.append(line)
    return lines


def skip_reason(line: str) -> str | None:
    """Why ``line`` is not run ("" for a line that runs although it looks long), None when it runs."""
    for marker, reason in SKIPPED:
        if marker in f" {line} ":
            return reason
    return None


def expand(line: str, task_id: str = "last") -> list[str]:
    """The words of ``line`` with its placeholders filled: optional ``[...]`` parts given (the first
    of ``a|b`` alternatives) unless they hold a placeholder (``[TASK_ID]``: the default is used),
    ``TASK_ID`` and a task id of the README's examples as ``task_id``, ``FILE`` a file name."""
    line = re.sub(r"\[([^\]]*)\]", lambda m: "" if re.search(r"\b[A-Z][A-Z_]+\b", m.group(1)) else m.group(1), line)
    line = re.sub(r"(\w+)(\|\w+)+", r"\1", line)
    line = line.replace("TASK_ID", task_id).replace("FILE", "out.json")
    words = shlex.split(line, comments=True)
    words = [task_id if re.fullmatch(r"[0-9a-f]{12}", w) else w for w in words]
    return [w for w in words if not re.fullmatch(r"[A-Z_]+=\S*", w)][1:]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("readme_commands")
    shutil.copytree(config_dir(), folder / "config")  # a copy: `scene check` writes its picture beside the scene
    return folder


def _run(scratch: Path, env: dict, words: list[str], timeout: float = 300.0, stdin: str | None = None):
    return subprocess.run([str(VENV_BIN / "llm-planner"), *words], cwd=scratch, env=env, capture_output=True,
                          text=True, timeout=timeout, input=stdin)


def test_the_readme_shows_command_lines_and_each_is_run_or_skipped_with_a_reason():
    lines = readme_commands()
    assert len(lines) > 30 and any(line.startswith("llm-planner plan") for line in lines)
    skipped = {line: skip_reason(line) for line in lines if skip_reason(line)}
    print(f"{len(lines)} command lines, {len(skipped)} not run:\n" +
          "\n".join(f"  {line[:90]}  <- {why}" for line, why in skipped.items()))


def test_the_command_lines_not_run_are_valid_command_lines(ros_env, scratch):
    from llm_planner.cli import build_parser

    parser = build_parser()
    for line in readme_commands():
        if not skip_reason(line):
            continue
        words = expand(line)
        if words[0] == "launch":
            for name in (w.removeprefix("params_file:=") for w in words if w.startswith("params_file:=")):
                if not (scratch / name).exists():  # a file the page has the reader write: a copy of the default
                    shutil.copy(config_dir() / "llm_planner.yaml", scratch / name)
            done = _run(scratch, ros_env, [*words, "--print"], timeout=120)
            assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-2000:])
            assert "planner_node" in done.stdout or "simulator_node" in done.stdout, (line, done.stdout)
        else:
            try:
                parser.parse_args(words)
            except SystemExit:
                pytest.fail(f"the README's command line does not parse: {line}")


def test_the_command_lines_without_a_graph_run(ros_env, scratch):
    for line in readme_commands():
        words = expand(line)
        if skip_reason(line) or words[0] in GRAPH_COMMANDS or words[0] == "snapshot" and "--task" in words:
            continue
        started = time.monotonic()
        done = _run(scratch, ros_env, words)
        print(f"{time.monotonic() - started:5.1f} s  {line[:100]}")
        assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-2000:])


@pytest.fixture(scope="module")
def graph(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("readme_graph"), planner="classical") as g:
        yield g


def _graph_lines() -> dict[str, str]:
    """The README's graph command lines by what they do."""
    found: dict[str, str] = {}
    for line in readme_commands():
        words = expand(line)
        if skip_reason(line) or not (words[0] in GRAPH_COMMANDS or words[0] == "snapshot" and "--task" in words):
            continue
        key = words[0]
        if key == "plan":
            key = "plan --answer" if "--answer" in words else "plan asks" if "the table" in line else \
                "plan --execute" if "--execute" in words else "plan"
        if key == "snapshot":
            if any(expand(other) == words for k, other in found.items() if k.startswith("snapshot")):
                continue  # the same command once its placeholders are filled
            key = f"snapshot {sum(k.startswith('snapshot') for k in found)}"
        found.setdefault(key, line)
    return found


def test_the_command_lines_of_the_node_graph_run_against_it(graph, scratch):
    lines = _graph_lines()
    assert {"plan", "plan --execute", "plan --answer", "plan asks", "cancel", "status", "say", "answer",
            "snapshot 0"} <= set(lines), sorted(lines)
    env = graph.runner.env

    def run(key: str, task_id: str = "last", **kwargs) -> subprocess.CompletedProcess:
        words = expand(lines[key], task_id)
        if key == "status":
            words += ["--duration", "2"]  # it watches until Ctrl-C
        started = time.monotonic()
        done = _run(scratch, env, words, **kwargs)
        print(f"{time.monotonic() - started:5.1f} s  {lines[key][:100]}")
        assert done.returncode == 0, (lines[key], done.stdout[-2000:], done.stderr[-2000:])
        return done

    run("plan")
    executed = run("plan --execute")
    task_id = re.search(r"\[([0-9a-f]{12})\] step 1", executed.stdout).group(1)
    run("status")
    run("say")
    run("plan --answer")
    for key in [k for k in lines if k.startswith("snapshot")]:
        run(key, task_id)
    _answer_and_cancel(graph, lines, scratch, env, run)


def _answer_and_cancel(graph, lines: dict[str, str], scratch: Path, env: dict, run) -> None:
    """The README's asking line (``plan "put the mug on the table" --execute``), answered with its
    ``answer`` line while it asks; the ``cancel`` line while another task waits for its answer."""
    asking = subprocess.Popen([str(VENV_BIN / "llm-planner"), *expand(lines["plan asks"])], cwd=scratch, env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.extend(iter(asking.stdout.readline, "")), daemon=True)
    reader.start()
    deadline = time.monotonic() + 120
    while not any("which table" in o for o in out):
        assert time.monotonic() < deadline and asking.poll() is None, "".join(out)
        time.sleep(0.2)
    run("answer")
    asking.stdin.close()  # nobody at the terminal: the CLI follows the task the answer let go on
    assert asking.wait(timeout=300) == 0, "".join(out)  # succeeded (the mug may be there already: nothing to do)
    reader.join(timeout=5)
    assert "success: True" in "".join(out), "".join(out)
    graph.client.execute("put the mug on the table")  # a task that waits for its answer: cancel finds it running
    deadline = time.monotonic() + 120
    while graph.client.question(spin_s=0.2) is None:
        assert time.monotonic() < deadline and not graph.client.is_task_complete(), graph.client.feedback()
    run("cancel")
    ended = graph.client.result()  # canceled through cancel_task while it asks
    assert not ended.success and "canceled" in ended.message, ended

