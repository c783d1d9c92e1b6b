"""``llm-planner serve``: an OpenAI-compatible model server on 127.0.0.1 whose answers come from the
offline backend; the way to try the openai path without a GPU (``llm_planner.llm.offline.serve``)::

    llm-planner serve --port 8000 --latency 0.5 --style chatty
    llm-planner translate "put two apples in the fridge" --backend openai --set openai.base_url=http://127.0.0.1:8000/v1
"""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    from llm_planner.llm.offline.serve_options import FAULTS

    p = sub.add_parser(
        "serve", help="serve the offline backend as an OpenAI-compatible chat API on 127.0.0.1",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Serve /v1/chat/completions and /v1/models on 127.0.0.1, answering the project's prompts "
        "(world model, policy, translation, STaLM plans, Levy-Karpas, SayCanPay Say) from the offline backend, "
        "with the latency, answer style and faults of a real model server. Point any command at it with "
        "--backend openai and openai.base_url=URL (printed at start). GET /stats reports the requests per "
        "question type; the counts are printed on exit (Ctrl-C).")
    p.add_argument("--port", type=int, default=8000, help="TCP port on 127.0.0.1 (default 8000; 0 picks a free one)")
    latency = p.add_mutually_exclusive_group()
    latency.add_argument("--latency", type=float, default=None, metavar="S", help="seconds per request (default 0)")
    latency.add_argument("--latency-dist", default=None, metavar="DIST",
                         help="latency drawn per request: uniform:LO,HI | normal:MEAN,SD | lognormal:MEDIAN,SIGMA | exp:MEAN")
    p.add_argument("--max-concurrency", type=int, default=0, metavar="K",
                   help="requests answered at once, the rest queue (default 0: no limit)")
    p.add_argument("--style", default="plain", help="answer style: plain, chatty, markdown, json, thinking, mixed "
                   "(default plain)")
    p.add_argument("--fault-rate", type=float, default=0.0, metavar="P", help="share of requests that fail (0..1)")
    p.add_argument("--faults", default=",".join(FAULTS),
                   help=f"which faults (comma-separated, drawn uniformly): {','.join(FAULTS)} (default all)")
    p.add_argument("--no-structured-output", action="store_true",
                   help="refuse response_format (HTTP 400), as servers without JSON-schema support do")
    p.add_argument("--max-n", type=int, default=0, metavar="N", help="refuse n above N (HTTP 400; default: no limit)")
    p.add_argument("--hang-s", type=float, default=30.0, help="how long a 'timeout' fault keeps a client waiting (30)")
    p.add_argument("--retry-after", type=float, default=1.0, help="Retry-After seconds of a 429 fault (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of faults, latency draws and style choices")
    p.add_argument("--model", default=None, help="model id listed by /v1/models (default llm-planner-offline)")
    p.add_argument("--llm-config", metavar="FILE", default=None, help="YAML overriding config/llm.yaml for the "
                   "embedded offline backend")
    p.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                   help="override a key of config/llm.yaml for the embedded offline backend (repeatable)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner.llm.config import load_llm_config, parse_dotted
    from llm_planner.llm.factory import make_backend
    from llm_planner.llm.offline.serve import ModelServer
    from llm_planner.llm.offline.serve_options import Latency, ServeOptions, format_stats
    from llm_planner.llm.offline.served import ServedModel

    latency = Latency.parse(args.latency_dist) if args.latency_dist else Latency.fixed(args.latency or 0.0)
    options = ServeOptions(
        port=args.port, latency=latency, max_concurrency=args.max_concurrency, style=args.style,
        fault_rate=args.fault_rate, faults=tuple(f.strip() for f in args.faults.split(",") if f.strip()),
        structured_output=not args.no_structured_output, max_n=args.max_n, hang_s=args.hang_s,
        retry_after_s=args.retry_after, seed=args.seed, **({"model": args.model} if args.model else {}),
    ).validate()
    config = load_llm_config(args.llm_config, parse_dotted(args.set)).with_overrides({"backend": "offline"})
    server = ModelServer(options, ServedModel(make_backend(config)))
    print("llm-planner serve: loading the offline backend ...", flush=True)
    server.start()
    faults = f"{options.fault_rate:.0%} faults ({','.join(options.faults)})" if options.fault_rate else "no faults"
    print(f"llm-planner serve: {server.base_url} (model {options.model}; style {options.style}; latency "
          f"{options.latency}; max concurrency {options.max_concurrency or 'unlimited'}; {faults}; structured output "
          f"{'on' if options.structured_output else 'off'})", flush=True)
    print(f"  use it: --backend openai --set openai.base_url={server.base_url}   (bench: --llm-set ...); "
          f"stats: {server.base_url.removesuffix('/v1')}/stats; Ctrl-C stops", flush=True)
    try:
        server.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        print("\nllm-planner serve: stopped\n" + format_stats(server.stats()), flush=True)
    return 0
