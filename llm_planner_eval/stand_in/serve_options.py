"""How ``llm-planner serve`` behaves and what it counts: latency distributions, injected faults,
answer styles and limits (:class:`ServeOptions`), and the statistics it prints (:class:`ServeStats`)."""
from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from llm_planner.errors import ConfigError
from llm_planner_eval.stand_in.styles import STYLES
from llm_planner_eval.stand_in.wrong_answers import error_profiles

HOST = "127.0.0.1"
MODEL = "llm-planner-offline"
FAULTS = ("429", "500", "timeout", "garbage", "refusal")
MAX_BODY = 4_000_000  # bytes of a request body that are read


# ------------------------------------------------------------------------------ options
@dataclass(frozen=True)
class Latency:
    """Seconds a request takes: ``fixed:S``, ``uniform:LO,HI``, ``normal:MEAN,SD``,
    ``lognormal:MEDIAN,SIGMA`` or ``exp:MEAN`` (never negative)."""

    kind: str = "fixed"
    params: tuple[float, ...] = (0.0,)

    @staticmethod
    def fixed(seconds: float) -> Latency:
        return Latency("fixed", (float(seconds),))

    @staticmethod
    def parse(text: str) -> Latency:
        kind, _, rest = str(text).strip().partition(":")
        if not rest:  # a bare number is a fixed latency
            kind, rest = "fixed", kind
        arity = {"fixed": 1, "uniform": 2, "normal": 2, "lognormal": 2, "exp": 1}
        try:
            params = tuple(float(x) for x in rest.split(","))
        except ValueError:
            params = ()
        if kind not in arity or len(params) != arity[kind] or any(p < 0 or not math.isfinite(p) for p in params):
            raise ConfigError(f"latency '{text}' is not one of fixed:S, uniform:LO,HI, normal:MEAN,SD, "
                              "lognormal:MEDIAN,SIGMA, exp:MEAN (seconds, non-negative)")
        if kind == "uniform" and params[0] > params[1]:
            raise ConfigError(f"latency '{text}': LO must not exceed HI")
        return Latency(kind, params)

    def draw(self, rng: random.Random) -> float:
        p = self.params
        value = {"fixed": lambda: p[0], "uniform": lambda: rng.uniform(p[0], p[1]),
                 "normal": lambda: rng.gauss(p[0], p[1]), "lognormal": lambda: p[0] * math.exp(rng.gauss(0.0, p[1])),
                 "exp": lambda: rng.expovariate(1.0 / p[0]) if p[0] > 0 else 0.0}[self.kind]()
        return max(0.0, value)

    def __str__(self) -> str:
        if self.kind == "fixed":
            return f"{self.params[0]:g} s"
        return f"{self.kind}:{','.join(f'{x:g}' for x in self.params)} s"


@dataclass(frozen=True)
class ServeOptions:
    """Everything ``llm-planner serve`` can be asked for (see the module docstring)."""

    port: int = 0                       # 0: a free port
    latency: Latency = field(default_factory=Latency)
    max_concurrency: int = 0            # requests answered at once; 0: no limit
    style: str = "plain"
    fault_rate: float = 0.0
    faults: tuple[str, ...] = FAULTS
    structured_output: bool = True      # accept response_format (json_schema, json_object)
    ignore_structured_output: bool = False  # accept response_format but answer in the style (transformers serve)
    ignore_n: bool = False              # answer one choice whatever n asks (transformers serve, llama.cpp)
    greedy: bool = False                # identical answers to identical prompts whatever temperature and seed
                                        # (a model without do_sample in its generation config)
    max_n: int = 0                      # largest n accepted (HTTP 400 above); 0: no limit
    hang_s: float = 30.0                # how long a "timeout" fault keeps the client waiting
    retry_after_s: float = 1.0          # Retry-After of a 429 fault
    seed: int = 0                       # faults, latency draws and style choices
    error_rate: float = 0.0             # share of samples answered wrongly, the way models are wrong
                                        # (llm_planner_eval.stand_in.wrong_answers; 0: the right answers)
    error_seed: int = 0                 # which samples are wrong (hashed with the prompt and sample index)
    error_correlation: float | None = None  # a question's samples wrong together (1) or each on its own (0);
                                        # None: correlation of config/serve_errors.yaml
    error_profile: str = "admissible"   # how wrong answers are wrong: admissible (they all read) or a profile
                                        # of config/serve_errors.yaml (smollm2: as that model's answers)
    model: str = MODEL
    warm_up: bool = True                # load the embedder and data set before listening

    def validate(self) -> ServeOptions:
        if self.style not in STYLES:
            raise ConfigError(f"unknown answer style '{self.style}' (styles: {', '.join(STYLES)})")
        if not 0.0 <= self.fault_rate <= 1.0:
            raise ConfigError(f"--fault-rate must be in [0, 1], got {self.fault_rate}")
        if not 0.0 <= self.error_rate <= 1.0:
            raise ConfigError(f"--error-rate must be in [0, 1] (the share of wrong answers), got {self.error_rate}")
        if self.error_profile not in error_profiles():
            raise ConfigError(f"unknown --error-profile '{self.error_profile}' (profiles of config/serve_errors.yaml: "
                              f"{', '.join(error_profiles())})")
        if self.error_correlation is not None and not 0.0 <= self.error_correlation <= 1.0:
            raise ConfigError(f"--error-correlation must be in [0, 1] (1: a question's samples wrong together), "
                              f"got {self.error_correlation}")
        unknown = [f for f in self.faults if f not in FAULTS]
        if unknown or (self.fault_rate > 0 and not self.faults):
            raise ConfigError(f"unknown fault(s) {', '.join(unknown) or '(none given)'} (faults: {', '.join(FAULTS)})")
        if self.max_concurrency < 0 or self.max_n < 0 or self.hang_s < 0 or self.retry_after_s < 0:
            raise ConfigError("--max-concurrency, --max-n, --hang-s and --retry-after must not be negative")
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"--port must be in 0..65535, got {self.port}")
        return self


# ------------------------------------------------------------------------------ statistics
class ServeStats:
    """Counters of a server (thread-safe); :meth:`snapshot` is what ``GET /stats`` returns."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests = 0
        self.by_kind: dict[str, int] = {}
        self.answered: dict[str, int] = {}
        self.choices = 0
        self.faults: dict[str, int] = {}
        self.bad_requests = 0
        self.structured = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.latency_s = 0.0
        self.queue_s = 0.0
        self.started = time.time()

    def count(self, name: str, key: str, amount: int = 1) -> None:
        with self._lock:
            table = getattr(self, name)
            table[key] = table.get(key, 0) + amount

    def add(self, **amounts: float) -> None:
        with self._lock:
            for name, amount in amounts.items():
                setattr(self, name, getattr(self, name) + amount)
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {"requests": self.requests, "by_kind": dict(self.by_kind), "answered": dict(self.answered),
                    "choices": self.choices, "faults": dict(self.faults), "bad_requests": self.bad_requests,
                    "structured": self.structured, "max_in_flight": self.max_in_flight,
                    "latency_s": round(self.latency_s, 3), "queue_s": round(self.queue_s, 3),
                    "uptime_s": round(time.time() - self.started, 1)}


def format_stats(stats: dict[str, Any]) -> str:
    """A short table of a stats snapshot (what the CLI prints on exit)."""
    lines = [f"requests: {stats['requests']} ({stats['choices']} choices, {stats['structured']} structured, "
             f"{stats['bad_requests']} bad), at most {stats['max_in_flight']} at once, "
             f"latency {stats['latency_s']:.1f} s, queued {stats['queue_s']:.1f} s in total"]
    for kind, count in sorted(stats["by_kind"].items()):
        lines.append(f"  {kind:<12} {count:>7} requests, {stats['answered'].get(kind, 0):>7} answered")
    if stats["faults"]:
        lines.append("  faults: " + ", ".join(f"{k} {v}" for k, v in sorted(stats["faults"].items())))
    if stats.get("wrong"):
        lines.append(f"  wrong answers ({stats.get('error_rate', 0):.0%} of samples drawn): "
                     + ", ".join(f"{k} {v}" for k, v in sorted(stats["wrong"].items())))
    return "\n".join(lines)
