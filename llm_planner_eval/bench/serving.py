"""Benchmarks against a served model: ``--serve-style STYLE`` starts ``llm-planner serve`` (its own
process, 127.0.0.1, a free port) for the run and points the ``openai`` backend at it, with a fresh
answer cache so every question really crosses HTTP. Episodes then wait on the server: with
latency they are I/O-bound, and ``--workers`` may exceed the cores.

    llm-planner bench household --suites simple,comp --serve-style chatty --serve-latency 0.2 --workers 6
    llm-planner bench household --suites simple --serve-error-rate 0.3   # a model wrong on 30 % of its samples
    llm-planner bench household --suites simple --serve-error-rate 0.9 --serve-error-profile smollm2  # as SmolLM2

A server of one's own is used with ``--backend openai --llm-set openai.base_url=URL`` instead.
"""
from __future__ import annotations

import argparse
import atexit
import functools
import tempfile
from collections.abc import Callable
from typing import Any

from llm_planner.errors import ConfigError
from llm_planner.llm.config import load_llm_config
from llm_planner_eval.stand_in.serve_options import Latency, format_stats
from llm_planner_eval.stand_in.styles import STYLES
from llm_planner_eval.stand_in.wrong_answers import ADMISSIBLE, error_profiles

_RUNNING: list = []  # stop functions of the servers started by serve_for_bench


def stop_served_models() -> None:
    """Stop the servers this process started (their statistics are printed); at exit otherwise."""
    while _RUNNING:
        stop = _RUNNING.pop()
        atexit.unregister(stop)
        stop()


def stops_served_models(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A bench's ``run``, after which the servers it started are stopped (also when it fails)."""
    @functools.wraps(run)
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return run(args)
        finally:
            stop_served_models()

    return wrapped


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("served model (llm-planner serve started for the run)")
    group.add_argument("--serve-style", default=None, choices=STYLES,
                       help="start llm-planner serve with this answer style and run the openai backend against it")
    group.add_argument("--serve-latency", default="0", metavar="S|DIST",
                       help="its latency per request: seconds, or uniform:LO,HI | normal:MEAN,SD | "
                            "lognormal:MEDIAN,SIGMA "
                            "| exp:MEAN (default 0)")
    group.add_argument("--serve-structured", action="store_true",
                       help="let it accept structured output (JSON schema); by default it refuses, so the client "
                            "falls back to reading the style's text")
    group.add_argument("--serve-error-rate", type=float, default=0.0, metavar="P",
                       help="a model of chosen quality: it answers each sample wrongly with probability P, the way "
                            "language models are wrong (llm-planner serve --error-rate; implies --serve-style plain "
                            "when no style is given)")
    group.add_argument("--serve-error-profile", default="admissible", metavar="NAME",
                       help="how its wrong answers are wrong (llm-planner serve --error-profile): admissible "
                            "(default; they all read) or smollm2 (as SmolLM2-135M's answers: unreadable, echoed, cut "
                            "off, objects not in view or not in the house, at its measured shares)")
    group.add_argument("--serve-error-seed", type=int, default=0, metavar="S",
                       help="which of its answers are wrong (llm-planner serve --error-seed; default 0)")
    group.add_argument("--serve-start-timeout", type=float, default=120.0, metavar="S",
                       help="seconds it may take to load and listen (default 120; more on a loaded machine)")
    group.add_argument("--serve-arg", action="append", default=[], metavar="OPTION",
                       help="a further option of llm-planner serve, e.g. --serve-arg=--fault-rate=0.2 (repeatable)")


def error_profile(args: argparse.Namespace) -> str:
    """The error profile of a run's served model (``--serve-error-profile``), checked against the
    profiles of ``config/serve_errors.yaml``."""
    profile = str(getattr(args, "serve_error_profile", None) or ADMISSIBLE)
    if profile not in error_profiles():
        raise ConfigError(f"--serve-error-profile '{profile}': no such profile in config/serve_errors.yaml "
                          f"(profiles: {', '.join(error_profiles())})")
    return profile


def serve_for_bench(args: argparse.Namespace, llm_overrides: dict[str, Any],
                    backend: str) -> tuple[dict[str, Any], str]:
    """Without ``--serve-style``: the arguments unchanged. With it: a started server (stopped, with its
    request counts printed, when the process exits) and the overrides that point the openai backend
    at it (the model name says style and latency, so tables and answer caches tell runs apart). Its
    answers and priors go to a folder of its own; the sentence embeddings stay in the user's."""
    error_rate = float(getattr(args, "serve_error_rate", 0.0) or 0.0)
    if error_rate and not getattr(args, "serve_style", None):
        args.serve_style = "plain"  # a model of chosen quality is a served model: --serve-error-rate implies one
    if not getattr(args, "serve_style", None):
        return llm_overrides, backend
    from llm_planner_eval.stand_in.serve import ServeProcess  # noqa: PLC0415 - CLI start-up: the stand-in server only when a benchmark serves one

    latency = Latency.parse(args.serve_latency)
    if not 0.0 <= error_rate <= 1.0:
        raise ConfigError(f"--serve-error-rate must be in [0, 1] (the share of wrong answers), got {error_rate}")
    error_seed = int(getattr(args, "serve_error_seed", 0) or 0)
    profile = error_profile(args)
    serve_args = ["--style", args.serve_style, "--latency-dist" if latency.kind != "fixed" else "--latency",
                  args.serve_latency if latency.kind != "fixed" else f"{latency.params[0]:g}",
                  *(["--error-rate", f"{error_rate:g}", "--error-seed", str(error_seed), "--error-profile", profile]
                    if error_rate else []),
                  *args.serve_arg]
    quality = (f", {error_rate:.0%} wrong answers (error seed {error_seed}, profile {profile})"
               if error_rate else "")
    if not args.serve_structured:
        serve_args.append("--no-structured-output")
    server = ServeProcess(serve_args, start_timeout_s=float(getattr(args, "serve_start_timeout", 120.0))).start()
    cache = tempfile.TemporaryDirectory(prefix="llm_planner_served_")

    def stop() -> None:
        try:
            stats = server.stats()
            print(f"\nserved model ({args.serve_style}, latency {latency}{quality}): " + format_stats(stats),
                  flush=True)
        except OSError:
            pass
        server.stop()
        cache.cleanup()

    atexit.register(stop)
    _RUNNING.append(stop)
    served = {**server.client_config()["openai"],
              "model": (f"llm-planner-offline/{args.serve_style}@{latency}"
                        + (f"~wrong{error_rate:g}s{error_seed}" if error_rate else "")
                        + (f"~{profile}" if error_rate and profile != ADMISSIBLE else "")).replace(" ", "")}
    embeddings = load_llm_config(overrides=llm_overrides).embeddings_dir  # the text's, not the model's: shared
    overrides = {**llm_overrides, "openai": {**llm_overrides.get("openai", {}), **served},
                 "cache": {**llm_overrides.get("cache", {}), "dir": cache.name},
                 "embeddings": {**llm_overrides.get("embeddings", {}), "dir": str(embeddings)}}
    load_llm_config(overrides=overrides)  # a bad --llm-set fails here, not in every worker
    print(f"served model: llm-planner serve at {server.base_url} (style {args.serve_style}, latency "
          f"{latency}{quality}, "
          f"structured output {'accepted' if args.serve_structured else 'refused'}"
          + (f", {' '.join(args.serve_arg)}" if args.serve_arg else "") + ")", flush=True)
    return overrides, "openai"
