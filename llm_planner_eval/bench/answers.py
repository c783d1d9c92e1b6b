"""``llm-planner bench answers``: what a real model's answers to the planner's questions are, by kind.

It is one piece because its two steps are one measurement: ``classify`` reads exactly the records
``record``'s proxy writes (one JSON line per question: kind, prompt, raw answers), and the tests of
the profiles (test/eval/stand_in/test_error_profiles.py) read the stand-in's answers with the same
kind functions.

The served stand-in's ``--error-profile smollm2`` (``config/serve_errors.yaml``) answers wrongly the
way SmolLM2-135M-Instruct does, at the shares measured here. Two steps:

``record``
    A recording proxy (:class:`RecordingProxy`, 127.0.0.1) sits between the planner and the model
    server (``openai.base_url`` of the client config) and writes every question and its raw answers
    (text, ``finish_reason``) to a JSON-lines file: the answer cache keeps only answers that read, so
    the raw ones are caught on the wire. Through it, with a fresh answer cache, the benchmarks of
    ``--run`` ask their questions (``household --methods l_policy``: the policy questions of real
    decisions, the prompts the package builds, one per step, M samples each; ``gtamp``: STaLM's
    plans), and the world-model and translation questions of a few object types and directives of
    the seen apartment are asked once each.
``classify``
    Each recorded answer is read with the package's own readers (``llm.answers``) against the
    situation its prompt states (``llm.offline.served`` reads it back) and put in one kind
    (:func:`policy_kind`, :func:`world_model_kind`, :func:`translate_kind`); the shares per question
    kind are printed, with the weights of a profile.

    llm-planner bench answers record --out smol_answers.jsonl --llm-config smol.yaml \\
        --run "household --methods l_policy --suites simple,comp --episodes 2 --seeds 1 --workers 1"
    llm-planner bench answers record --out smol_answers.jsonl --llm-config smol.yaml --objects 0 --directives 0 \\
        --run "gtamp --problems P1,P2,P3 --methods stalm,stalm_no_uct,uct --trials 2"
    llm-planner bench answers classify smol_answers.jsonl

The same classifier reads the stand-in's answers in the tests of the profile, so a profile's
shares are checked the way they were measured.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

from llm_planner.domains.household.language.questions import object_positions, translate
from llm_planner.domains.household.language.text import WorldInfo, action_phrases, text_to_name
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import ConfigError, LlmPlannerError
from llm_planner.llm.answers import Unparsable, first_action, read_goal_tuples, read_positions
from llm_planner.llm.config import load_llm_config
from llm_planner.llm.factory import make_backend
from llm_planner.methods.stalm.plan_parser import plan_section, scan_tuples
from llm_planner_eval.bench.report import format_table
from llm_planner_eval.stand_in import stalm_served
from llm_planner_eval.stand_in.served import (
    UnreadablePrompt,
    classify,
    policy_question,
    prompt_of,
    translate_question,
    world_model_question,
)

HOST = "127.0.0.1"

#: The kinds of a policy answer, in the order they are tested (the first that holds).
POLICY_KINDS = ("echoed_prompt", "cut_off", "unreadable", "done", "not_in_house", "not_in_view",
                "precondition", "admissible")
WORLD_MODEL_KINDS = ("echoed_prompt", "cut_off", "unreadable", "not_in_house", "readable")
TRANSLATE_KINDS = ("echoed_prompt", "cut_off", "unreadable", "not_in_house", "readable")
TASK_PLANS_KINDS = ("echoed_prompt", "cut_off", "unreadable", "readable")
KINDS = {"policy": POLICY_KINDS, "world_model": WORLD_MODEL_KINDS, "translate": TRANSLATE_KINDS,
         "task_plans": TASK_PLANS_KINDS}
#: The answer kinds that read as a usable answer (the rest are a profile's errors).
USABLE = {"policy": ("admissible", "done"), "world_model": ("readable",), "translate": ("readable",),
          "task_plans": ("readable",)}
#: The stand-in's error kind that writes an answer of each unusable answer kind (``--error-profile``).
ERROR_KIND = {
    "policy": {"echoed_prompt": "echoed_prompt", "cut_off": "cut_off", "unreadable": "unreadable",
               "not_in_house": "absent_object", "not_in_view": "not_in_view", "precondition": "skipped_precondition"},
    "world_model": {"echoed_prompt": "echoed_prompt", "cut_off": "cut_off", "unreadable": "unreadable",
                    "not_in_house": "not_in_house"},
    "translate": {"echoed_prompt": "echoed_prompt", "cut_off": "cut_off", "unreadable": "unreadable",
                  "not_in_house": "not_in_house"},
    "task_plans": {"echoed_prompt": "echoed_prompt", "cut_off": "cut_off", "unreadable": "unreadable"},
}

#: An answer line whose first characters are found in the prompt writes the prompt back.
ECHO_CHARS = 30
_ANSWER_LABEL = re.compile(r"^(?:next actions?|answer|formal goal)\s*:\s*")
#: How the prompts' observations open (``prompts.observation_to_text``).
_OBSERVATION_OPENING = ("you are in the ",)
#: Lines of the project's prompts that a model repeating its prompt writes back.
_PROMPT_LABELS = ("goal:", "completed actions:", "current observation:", "rooms in the house:",
                  "furniture in the house:", "objects in the house:", "allowed actions:", "question:",
                  "rooms in the apartment:", "containers in the apartment:", "surfaces in the apartment:",
                  "formal goal:", "containers:", "surfaces:", "initial observation:", "planned actions so far:")


# ------------------------------------------------------------------------------ recording
class RecordingProxy:
    """An OpenAI chat-completions proxy on 127.0.0.1 that forwards each request to ``upstream`` and
    appends ``{"kind", "prompt", "params", "answers": [{"text", "finish_reason"}], "seconds"}`` to
    ``out`` (a context manager; ``base_url`` once started). Requests wait at most ``timeout_s``."""

    def __init__(self, upstream: str, out: str | Path, timeout_s: float) -> None:
        self.upstream = upstream.rstrip("/")
        self.out = Path(out)
        self.timeout_s = timeout_s
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self.recorded = 0

    def __enter__(self) -> RecordingProxy:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, status: int, body: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout, or it ended): the answer is recorded all the same

            def do_GET(self) -> None:
                status, body = proxy.forward("GET", self.path, None)
                self._reply(status, body)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, body = proxy.forward("POST", self.path, raw)
                self._reply(status, body)

        self._httpd = ThreadingHTTPServer((HOST, 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "the proxy is not running"
        return f"http://{HOST}:{self._httpd.server_address[1]}/v1"

    def forward(self, method: str, path: str, raw: bytes | None) -> tuple[int, bytes]:
        """(status, body) of the upstream's answer; a chat completion is recorded."""
        url = self.upstream.removesuffix("/v1") + path
        request = urllib.request.Request(url, data=raw, method=method, headers={"Content-Type": "application/json"})
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                status, body = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, body = exc.code, exc.read()
        except OSError as exc:
            return 502, json.dumps({"error": {"message": f"proxy: {self.upstream} did not answer ({exc})"}}).encode()
        if method == "POST" and path.rstrip("/").endswith("/chat/completions") and status == 200:
            self._record(json.loads(raw or b"{}"), json.loads(body), time.monotonic() - started)
        return status, body

    def _record(self, request: Mapping[str, Any], reply: Mapping[str, Any], seconds: float) -> None:
        prompt = prompt_of(request.get("messages") or [])
        kind = classify(prompt)
        if kind == "random":  # the client's first-contact probe, not a question of the planner
            return
        answers = [{"text": (c.get("message") or {}).get("content") or "", "finish_reason": c.get("finish_reason")}
                   for c in reply.get("choices") or []]
        params = {k: request.get(k) for k in ("max_tokens", "temperature", "top_p", "stop", "seed", "n")}
        line = json.dumps({"kind": kind, "prompt": prompt, "params": params, "answers": answers,
                           "seconds": round(seconds, 3), "usage": reply.get("usage")})
        with self._lock, self.out.open("a") as f:
            f.write(line + "\n")
            self.recorded += 1


# ------------------------------------------------------------------------------ classifying
@dataclass(frozen=True)
class Names:
    """The names a prompt lists, as words, for telling what an answer's phrases refer to."""

    world: WorldInfo

    def kind_of(self, phrase: str) -> str:
        """``object``, ``furniture``, ``room`` or ``unknown`` (a phrase naming nothing of the house)."""
        return self.resolve(phrase)[0]

    def resolve(self, phrase: str) -> tuple[str, str]:
        """(kind, name) of a phrase: an instance (``apple 1``), an object type (``apple``, plural
        too), a furniture or a room, matched as words; (``unknown``, "") otherwise."""
        name = text_to_name(" ".join(phrase.lower().replace("the ", " ").split()))
        singular = name[:-2] if name.endswith("es") else name[:-1] if name.endswith("s") else name
        world = self.world
        for candidate in dict.fromkeys((name, singular)):
            if candidate in world.object_type:
                return "object", candidate
            if candidate in world.object_types:
                return "object", candidate
            if candidate in world.furniture_room or candidate in world.containers or candidate in world.surfaces:
                return "furniture", candidate
            if candidate in world.rooms:
                return "room", candidate
        return "unknown", ""


def echoes_prompt(text: str, prompt: str) -> bool:
    """Whether an answer writes its prompt back: a line of it (after an answer label such as ``Next
    action:``) starts with a label of the project's prompts (``Goal:``, ``Completed actions:``,
    ``Rooms in the house:`` ...) or with the prompt's observation phrasing ("you are in the ..."),
    or its first 30 characters are found in the prompt."""
    flat_prompt = " ".join(prompt.split()).lower()
    for line in text.splitlines():
        clean = " ".join(line.split()).lower().lstrip("#*-> ")
        clean = _ANSWER_LABEL.sub("", clean)
        if clean.startswith(_PROMPT_LABELS) or clean.startswith(_OBSERVATION_OPENING):
            return True
        if len(clean) >= ECHO_CHARS and clean[:ECHO_CHARS] in flat_prompt:
            return True
    return False


def cut_off(text: str, finish_reason: str | None) -> bool:
    """Whether the answer's first line was cut by its token budget: the answer ran to the budget
    (``finish_reason: length``) within its first line, which ends in no punctuation mark."""
    clean = text.strip()
    return finish_reason == "length" and "\n" not in clean and not clean.endswith((".", "?", "!", ":", ")"))


def _echo_unless_usable(question: str, kind: str, text: str, prompt: str) -> str:
    """``kind`` where it reads as a usable answer (the package reads what it reads, a restated
    question before it or not), else ``echoed_prompt`` where the answer writes the prompt back."""
    if kind in USABLE[question] or not echoes_prompt(text, prompt):
        return kind
    return "echoed_prompt"


def policy_kind(prompt: str, text: str, finish_reason: str | None = None) -> str:
    """The kind of a policy (or Say) answer (:data:`POLICY_KINDS`): an action the robot can take now,
    or ``done`` (usable, whatever else the answer writes); else the prompt written back, cut off in
    its first line with no action read, no action read, an action naming something the house does not
    have, an object of the house not in the current observation, or a thing in view with a
    precondition unmet (not close to it, the hand full or empty, the container closed). Raises
    UnreadablePrompt for a prompt that is no policy question."""
    world, _goal, observation, _history = policy_question(prompt)
    return _echo_unless_usable("policy", _policy_read(world, observation, text, finish_reason), text, prompt)


def _policy_read(world: WorldInfo, observation: Any, text: str, finish_reason: str | None) -> str:
    action = first_action(text)
    if action is None:
        return "cut_off" if cut_off(text, finish_reason) else "unreadable"
    if action in ("done", "done task"):
        return "done"
    parsed = action_phrases(action)
    if parsed is None:
        return "cut_off" if cut_off(text, finish_reason) else "unreadable"
    verb, phrases = parsed
    names = Names(world)
    resolved = [names.resolve(p) for p in phrases]
    if any(kind == "unknown" for kind, _name in resolved):
        return "cut_off" if cut_off(text, finish_reason) and text.rstrip().endswith(phrases[-1]) else "not_in_house"
    in_view = _in_view(world, observation)
    if any(name not in in_view for kind, name in resolved if kind == "object"):
        if not (verb == "walk" and resolved[0][0] == "object" and _type_in_view(world, resolved[0][1], in_view)):
            return "not_in_view"
    return "admissible" if _feasible(verb, resolved, world, observation, in_view) else "precondition"


def _in_view(world: WorldInfo, observation: Any) -> set[str]:
    """Objects (instances and their types) the robot sees or holds."""
    seen = {obj for _rel, obj, _place in observation.relations}
    if observation.holding:
        seen.add(observation.holding)
    return seen | {world.object_type.get(o, o) for o in seen}


def _type_in_view(world: WorldInfo, name: str, in_view: set[str]) -> bool:
    return world.object_type.get(name, name) in in_view


def _place_of(observation: Any, obj: str) -> str | None:
    return next((place for _rel, o, place in observation.relations if o == obj), None)


def _feasible(verb: str, resolved: Sequence[tuple[str, str]], world: WorldInfo, observation: Any,
              in_view: set[str]) -> bool:
    """Whether the robot can take the action now, by the prompt's rules (close to a thing before
    it grabs, opens, closes or puts; one object held; a container open to put inside it)."""
    (kind, name), *rest = resolved
    near = observation.near
    if verb == "walk":
        return kind == "room" or (kind == "furniture" and (world.furniture_room.get(name) == observation.room
                                                           or name in observation.seen_places)) \
            or kind == "object"
    if verb == "grab":
        objs = [o for _r, o, _p in observation.relations if o == name or world.object_type.get(o) == name]
        return kind == "object" and observation.holding is None and any(
            near in (_place_of(observation, o), o) for o in objs)
    if verb in ("open", "close"):
        is_open = name in observation.open_containers
        return kind == "furniture" and name in world.containers and near == name and is_open == (verb == "close")
    if verb in ("putin", "puton") and rest:
        dest_kind, dest = rest[0]
        held = observation.holding
        holds = held is not None and name in (held, world.object_type.get(held))
        usable = dest not in world.containers or dest in observation.open_containers
        return holds and dest_kind == "furniture" and near == dest and usable
    return False


def world_model_kind(prompt: str, text: str, finish_reason: str | None = None) -> str:
    """The kind of a world-model answer (:data:`WORLD_MODEL_KINDS`): the prompt written back, cut
    off, nothing read as a place, a place the apartment does not have, or a place of the apartment."""
    world, _obj = world_model_question(prompt)
    places = [place for _rel, place in read_positions(text) if place]
    if not places:
        kind = "cut_off" if cut_off(text, finish_reason) else "unreadable"
    else:
        names = Names(world)
        kind = "readable" if any(names.kind_of(p) == "furniture" for p in places) else "not_in_house"
    return _echo_unless_usable("world_model", kind, text, prompt)


def translate_kind(prompt: str, text: str, finish_reason: str | None = None) -> str:
    """The kind of a translation answer (:data:`TRANSLATE_KINDS`): the prompt written back, cut off,
    no whole goal read, a goal naming an object or place the house does not have, or a goal of the
    house's names (right or wrong: the check against the directive tells)."""
    world, _directive = translate_question(prompt)
    try:
        items = read_goal_tuples(text)
    except Unparsable:
        items = []
    names = Names(world)
    if not items:
        kind = "cut_off" if cut_off(text, finish_reason) else "unreadable"
    elif all(names.kind_of(obj) == "object" and names.kind_of(dest) == "furniture" for _r, obj, dest, _c in items):
        kind = "readable"
    else:
        kind = "not_in_house"
    return _echo_unless_usable("translate", kind, text, prompt)


def task_plans_kind(prompt: str, text: str, finish_reason: str | None = None) -> str:
    """The kind of a STaLM plan answer (:data:`TASK_PLANS_KINDS`): the prompt written back, cut off,
    no step tuple in its plan section, or a plan with steps (right or wrong: the search tells)."""
    if not stalm_served.recognise(prompt):
        raise UnreadablePrompt("the prompt is no STaLM question")
    section, _assigned = plan_section(text)
    if any(isinstance(step, list) and step for step in scan_tuples(section)):
        kind = "readable"
    else:
        kind = "cut_off" if cut_off(text, finish_reason) else "unreadable"
    return _echo_unless_usable("task_plans", kind, text, prompt)


_CLASSIFIERS = {"policy": policy_kind, "world_model": world_model_kind, "translate": translate_kind,
                "task_plans": task_plans_kind}


def answer_kind(question: str, prompt: str, text: str, finish_reason: str | None = None) -> str | None:
    """The kind of one answer to a question of kind ``question``; None for a kind not classified
    (a method's question) or a prompt that is not one of the project's questions."""
    classifier = _CLASSIFIERS.get(question)
    if classifier is None:
        return None
    try:
        return classifier(prompt, text, finish_reason)
    except UnreadablePrompt:
        return None


def shares(records: Iterable[Mapping[str, Any]]) -> dict[str, Counter[str]]:
    """Per question kind, the count of each answer kind over every sample of ``records``."""
    out: dict[str, Counter[str]] = {}
    for record in records:
        for answer in record.get("answers", []):
            kind = answer_kind(str(record.get("kind")), str(record.get("prompt")), str(answer.get("text") or ""),
                               answer.get("finish_reason"))
            if kind is not None:
                out.setdefault(str(record["kind"]), Counter())[kind] += 1
    return out


def profile_weights(counts: Mapping[str, Counter[str]]) -> dict[str, dict[str, float]]:
    """Per question kind, the stand-in's error kinds weighted by the share of their answer kind among
    the unusable answers (rounded to 3 places): the ``weights`` of an error profile."""
    out: dict[str, dict[str, float]] = {}
    for question, counter in counts.items():
        errors = {kind: n for kind, n in counter.items() if kind not in USABLE.get(question, ())}
        total = sum(errors.values())
        if total:
            out[question] = {ERROR_KIND[question][kind]: round(n / total, 3) for kind, n in sorted(errors.items())}
    return out


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """The records of a ``record`` run (JSON lines)."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def format_shares(counts: Mapping[str, Counter[str]], questions: Mapping[str, int] | None = None) -> str:
    """A table: per question kind and answer kind, the count and share of the samples."""

    body = []
    for question, counter in counts.items():
        total = sum(counter.values())
        for kind in KINDS.get(question, tuple(counter)):
            if counter.get(kind):
                body.append([question, kind, str(counter[kind]), f"{counter[kind] / total:.3f}"])
        body.append([question, "(samples)", str(total),
                     f"{(questions or {}).get(question, 0)} questions" if questions else ""])
    return format_table(["question", "answer kind", "samples", "share"], body)


# ------------------------------------------------------------------------------ the command
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("answers", help="record a real model's raw answers to the planner's questions and "
                       "classify them by kind (the stand-in's --error-profile shares)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = p.add_subparsers(dest="step", metavar="STEP")
    rec = steps.add_parser("record", help="ask real questions through a recording proxy")
    rec.add_argument("--out", required=True, metavar="FILE", help="JSON-lines file the answers are appended to")
    rec.add_argument("--llm-config", required=True, metavar="FILE",
                     help="client config of the model server (backend openai, base_url, model)")
    rec.add_argument("--run", action="append", default=[], metavar="BENCH ARGS",
                     help="a benchmark to run through the proxy with the backend openai, e.g. \"household --methods "
                     "l_policy --suites simple,comp --episodes 2 --seeds 1 --workers 1\" or \"gtamp --problems P1 "
                     "--methods stalm --trials 1\" (repeatable; run in turn)")
    rec.add_argument("--objects", type=int, default=10, help="world-model questions: object types (default 10)")
    rec.add_argument("--directives", type=int, default=10, help="translation questions (default 10)")
    rec.add_argument("--timeout", type=float, default=600.0, help="seconds one request may take (default 600)")
    cls = steps.add_parser("classify", help="shares of the answer kinds of recorded answers")
    cls.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.step == "record":
        return _record(args)
    if args.step == "classify":
        records = [r for f in args.files for r in read_records(f)]
        questions = Counter(kind for kind, _prompt in {(str(r["kind"]), str(r["prompt"])) for r in records})
        print(f"{sum(len(r['answers']) for r in records)} samples of {sum(questions.values())} questions "
              f"from {', '.join(args.files)}")
        counts = shares(records)
        print(format_shares(counts, questions))
        print("\nweights of the unusable answers' error kinds (profiles.NAME.weights of config/serve_errors.yaml):")
        for question, weights in profile_weights(counts).items():
            print(f"  {question}: {{{', '.join(f'{k}: {v:g}' for k, v in weights.items())}}}")
        return 0
    raise ConfigError("llm-planner bench answers: give a step, record or classify")


def _record(args: argparse.Namespace) -> int:

    config = load_llm_config(args.llm_config)
    upstream = str(config.get("openai.base_url"))
    with RecordingProxy(upstream, args.out, args.timeout) as proxy, \
            tempfile.TemporaryDirectory(prefix="llm_planner_answers_") as cache:
        print(f"recording proxy {proxy.base_url} -> {upstream}; answers to {args.out}", flush=True)
        client = yaml.safe_load(Path(args.llm_config).read_text()) or {}
        client = {**client, "backend": "openai", "openai": {**client.get("openai", {}), "base_url": proxy.base_url},
                  "cache": {**client.get("cache", {}), "dir": cache}}
        through = Path(cache) / "client.yaml"  # every question of the runs crosses the proxy, none from a cache
        through.write_text(yaml.safe_dump(client))
        env = {**os.environ, "LLM_PLANNER_LLM_CONFIG": str(through), "LLM_PLANNER_CACHE": cache}
        for run in args.run:
            command = [sys.executable, "-m", "llm_planner.cli", "bench", *shlex.split(run), "--backend", "openai"]
            print(f"  running: llm-planner bench {run} --backend openai", flush=True)
            subprocess.run(command, env=env, check=False)
        _ask_world_and_translation(args, str(through))
        print(f"recorded {proxy.recorded} requests", flush=True)
    return 0


def _ask_world_and_translation(args: argparse.Namespace, client_config: str) -> None:
    """World-model questions of ``--objects`` object types and translations of ``--directives``
    directives of the seen apartment, once each (errors are answers too: they are recorded)."""
    from llm_planner_eval.bench.translate import load_cases

    if not args.objects and not args.directives:
        return
    backend = make_backend(load_llm_config(client_config))
    world = WorldInfo.from_scene(load_scene("apartment_seen"))
    for obj_type in list(world.object_types)[:args.objects]:
        try:
            object_positions(backend, world, obj_type)
        except LlmPlannerError as exc:
            print(f"  world model, {name_to_text(obj_type)}: {exc}", flush=True)
    cases = [c for c in load_cases() if c.scene == "seen"][:args.directives]
    for case in cases:
        try:
            translate(backend, world, case.directive)
        except LlmPlannerError as exc:
            print(f"  translation, {case.directive!r}: {exc}", flush=True)
