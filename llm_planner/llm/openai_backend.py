"""Backend ``openai``: any OpenAI-compatible chat-completions server (OpenAI, vLLM, Ollama,
llama.cpp server, LM Studio, ``transformers serve``) through the real ``openai`` client.

A client that knows its server (:mod:`llm_planner.llm.server_profile`): on first contact a few tiny
requests find out whether the server honours ``n``, samples at ``temperature`` > 0 or decodes
greedily, honours ``response_format`` and ``logprobs``; that is said once in the log and in
:meth:`OpenAIBackend.describe`, and the backend adapts:

* ``n`` ignored or refused: the M samples of a question are asked at once, one request each (with
  ``seed`` 0..M-1 so a server that honours seeds gives M different answers);
* greedy decoding: ONE sample per question, as M identical answers are one answer (a method that
  estimates a distribution from M samples then has one, and says so through the profile);
* structured output ignored or refused: questions are asked in plain text (no ``response_format``).

Requests in flight follow what the server sustains (:mod:`llm_planner.llm.in_flight`: an adaptive
limit on measured latency, halved on timeouts and overloads, shared by every question asked of one
server in a process), so questions never queue at the server into their own timeouts and retries
never pile onto a saturated server. Time a request waits for a slot in the client is not counted in
``openai.question_timeout_s`` (it has its own bound, ``openai.queue_timeout_s``).

Faults are bounded, never a crash and never a hang:

* every request has a timeout (``openai.timeout_s``: connect, read, write), and one question with
  all its retries and samples gives up after ``openai.question_timeout_s`` at the server;
* connection errors, timeouts, 429, 5xx and answers without choices are retried at most
  ``openai.max_retries`` times, sleeping ``min(backoff_initial_s * 2**k, backoff_max_s)`` before
  retry k (a server's Retry-After is honoured up to ``backoff_max_s``); the client's own retry
  machinery is switched off (``max_retries=0``) so this bound is the only one; a timeout names the
  server, its measured speed and the settings to change;
* other HTTP errors (401, 404, 400 ...) fail at once with a message that says what to fix;
* :meth:`OpenAIBackend.close` (and the end of the process) abandons the questions in flight: their
  connections are shut down and each raises at once, unasked again (:mod:`llm_planner.llm.connections`);
* answers that parse to nothing, or whose names ground to nothing in the scene, are asked again
  ``openai.parse_retries`` times, then raise :class:`~llm_planner.errors.ModelServerError` (an LLMError).

A policy question asked ``from_initial`` (SayCanPay's offline planning, seed 004 §4) is asked with
the plan prompt (``domains/household/language/prompts/plan.txt``: goal, initial observation,
planned actions so far, next action or "done task"), not as a robot's current situation.

Answers in any style: questions ask for structured output (``response_format`` with the question's
JSON schema, ``llm_planner.llm.answers.SCHEMAS``) when ``openai.structured_output`` is ``auto`` or
``json_schema`` and the server honours it; in ``auto`` a server that refuses it (HTTP 400/422 naming
it) is asked again in plain text, and remembered. Either way the answer is read by the style-proof
readers of ``llm_planner.llm.answers`` (JSON, lists, markdown, "Sure! ...", thinking preambles), and
an action is kept when it states an admissible action (verb and names,
:meth:`Grounder.names_action`); one that states none is read as its most similar admissible action
above a cosine floor (``policy.inadmissible: nearest``, LLM-MCTS §2.3) or left out (``drop``), and
the answer says which samples were read so (:class:`~llm_planner.llm.base.ActionSamples`). Each
question kind has its answer budget (``max_tokens`` and ``stop`` of its section in config/llm.yaml).
The API key is read from the environment variable named by ``openai.api_key_env``; it is never
logged, cached or printed. Answers that parse are cached on disk (:mod:`llm_planner.llm.cache`).
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlparse

from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.prompts import (
    plan_prompt,
    policy_prompt,
    translate_prompt,
    world_model_prompt,
)
from llm_planner.domains.household.language.text import WorldInfo, action_to_text
from llm_planner.domains.household.world.symbolic import INSIDE, ON, Action
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import LLMError, ModelServerError, UnusableAnswer
from llm_planner.llm.answers import (
    Unparsable,
    first_action,
    looks_like_refusal,
    read_goal_tuples,
    read_positions,
    response_format,
    schema_of,
)
from llm_planner.llm.base import ActionSamples, AnswerInfo, GoalTuples, LanguageModel, PositionSamples
from llm_planner.llm.cache import AnswerCache, cache_key
from llm_planner.llm.config import LLMConfig
from llm_planner.llm.connections import (
    Connections,
    QuestionAbandoned,
    close_at_exit,
    exiting,
    tracked_http_client,
)
from llm_planner.llm.in_flight import AdaptiveLimiter, LimiterSettings, QuestionClock, limiter_for
from llm_planner.llm.openai_http import FormatRefused
from llm_planner.llm.openai_http import preview as _preview
from llm_planner.llm.openai_requests import OpenAIRequests
from llm_planner.llm.resources import Resources
from llm_planner.llm.server_profile import (
    IGNORED,
    REFUSED,
    ProbeSettings,
    ServerProfile,
    probe_server,
    server_profile,
)
from llm_planner.llm.waits import AnswerTimes, WaitSettings, answer_times

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletionMessageParam

T = TypeVar("T")

OPENAI_HOSTS = ("api.openai.com",)
_INSIDE_WORDS = ("inside", "in", "into", "inside of", "within")
LOG = logging.getLogger("llm_planner.llm.openai")


@dataclass
class _Reply:
    texts: list[str]
    cached: bool
    requests: int


class OpenAIBackend(OpenAIRequests, LanguageModel):
    """The ``openai`` client against ``openai.base_url`` (see the module docstring)."""

    name = "openai"

    def __init__(self, config: LLMConfig, resources: Resources, cache: AnswerCache | None = None) -> None:
        super().__init__(config, resources)
        self.cache = cache
        opts = config.section("openai")
        self.base_url: str = str(opts["base_url"]).rstrip("/")
        self._model: str = str(opts["model"])
        self.timeout_s = float(opts["timeout_s"])
        self.question_timeout_s = float(opts.get("question_timeout_s", 120.0))
        self.max_retries = int(opts["max_retries"])
        self.parse_retries = int(opts.get("parse_retries", 1))
        self.backoff_initial_s = float(opts["backoff_initial_s"])
        self.backoff_max_s = float(opts["backoff_max_s"])
        self.n_supported = bool(opts["n_in_one_request"])
        self.structured_mode = str(opts.get("structured_output", "auto"))
        self.structured_supported = self.structured_mode != "off"
        self.greedy = False
        self.key_env = str(opts["api_key_env"])
        self.probe_settings = ProbeSettings.from_config(opts)
        self.limiter: AdaptiveLimiter = limiter_for(self.base_url, self._model, LimiterSettings.from_config(opts))
        self.wait_settings = WaitSettings.from_config(config.section("waits"))
        self._profile: ServerProfile | None = None
        self._client: openai.OpenAI | None = None
        self._connections: Connections | None = None
        #: bumped by :meth:`close`: a question asked before it is abandoned (``QuestionClock.generation``)
        self._generation = 0
        self._closing = threading.Event()  # set by close(): a backoff sleep of an abandoned question ends
        self._client_lock = threading.Lock()
        self.sleep: Callable[[float], None] = self._sleep_unless_closed
        close_at_exit(self)

    @property
    def model(self) -> str:
        return self._model

    def describe(self) -> dict[str, Any]:
        """Backend, model, server and what the server honours (probed now if not yet), the in-flight
        limit and the server's measured speed."""
        profile = self.server_profile()
        return {"backend": self.name, "model": self.model, "base_url": self.base_url,
                "structured_output": self.structured_mode, "server": profile.summary(),
                "server_profile": profile.as_dict(), "in_flight": self.limiter.describe(),
                "samples": "one per question (greedy server)" if self.greedy else
                "n in one request" if self.n_supported else "one request each, at once"}

    # ------------------------------------------------------------------ server
    def server_url(self) -> str:
        return self.base_url

    def answer_times(self, kind: str) -> AnswerTimes:
        """How long questions of ``kind`` take at this server, shared by the process's backends
        (:mod:`llm_planner.llm.waits`)."""
        return answer_times(f"{self.model} at {self.base_url}", kind, self.wait_settings)

    def samples_in_one_request(self) -> bool:
        """False when the server ignores or refuses ``n`` (probed now if not yet): M samples are M requests."""
        self.server_profile()
        return self.n_supported or self.greedy

    def server_profile(self) -> ServerProfile:
        """What the server honours (:mod:`llm_planner.llm.server_profile`), probed on first call and
        cached per server in the process; the backend adapts to it (module docstring)."""
        profile = self._profile
        if profile is not None and (profile.probed or not self.probe_settings.enabled
                                    or time.monotonic() - profile.when < self.probe_settings.retry_after_s):
            return profile
        if not self.probe_settings.enabled:
            profile = ServerProfile(self.base_url, self.model, error="openai.probe.enabled is false",
                                    when=time.monotonic())
        else:
            client = self.client()
            profile = server_profile(self.base_url, self.model,
                                     lambda: probe_server(client, self.base_url, self.model, self.probe_settings),
                                     self.probe_settings, on_new=_log_profile)
        self._adapt(profile)
        self._profile = profile
        return profile

    def _adapt(self, profile: ServerProfile) -> None:
        if not profile.probed:
            return
        if profile.n in (IGNORED, REFUSED):
            self.n_supported = False
        if profile.structured_output in (IGNORED, REFUSED) and self.structured_mode == "auto":
            self.structured_supported = False
        self.greedy = profile.greedy and bool(self.config.get("openai.probe.greedy_one_sample"))

    # ------------------------------------------------------------------ client
    def _api_key(self) -> str:
        key = os.environ.get(self.key_env, "").strip()
        if key:
            return key
        host = urlparse(self.base_url).hostname or ""
        if host in OPENAI_HOSTS:
            raise ModelServerError(f"the openai backend needs an API key: set the environment variable {self.key_env} "
                           "(openai.api_key_env in config/llm.yaml names it)")
        return "no-key"  # local OpenAI-compatible servers usually ignore the key

    def client(self) -> openai.OpenAI:
        """The ``openai`` client, made on first use (and again after :meth:`close`); its connections
        are kept so that :meth:`close` can abandon the requests in flight
        (:mod:`llm_planner.llm.connections`)."""
        with self._client_lock:
            if self._client is None:
                try:
                    import openai  # noqa: PLC0415 - heavy optional: the openai client only on the served-model path
                except ImportError as exc:
                    raise ModelServerError(f"the openai package is not installed ({exc}); pip "
                                           "install -r requirements.txt") from None
                http_client, self._connections = tracked_http_client(self.timeout_s)
                self._client = openai.OpenAI(api_key=self._api_key(), base_url=self.base_url,
                                             timeout=self.timeout_s, max_retries=0, http_client=http_client)
            return self._client

    def close(self) -> None:
        """Abandon the questions in flight at once: their connections are shut down (the server sees
        the client gone), each raises :class:`~llm_planner.llm.connections.QuestionAbandoned` instead
        of asking again, and nothing waits for them. A question asked afterwards opens a new client.
        Called at interpreter exit for every backend (before question threads are joined)."""
        with self._client_lock:
            self._generation += 1
            client, connections, closing = self._client, self._connections, self._closing
            self._client, self._connections, self._closing = None, None, threading.Event()
        closing.set()
        if connections is not None:
            connections.abandon()
        if client is not None:
            client.close()

    def _sleep_unless_closed(self, seconds: float) -> None:
        """A backoff sleep, cut short by :meth:`close`."""
        self._closing.wait(seconds)

    def _client_for(self, clock: QuestionClock) -> openai.OpenAI:
        """The client for a request of the question timed by ``clock``; QuestionAbandoned once the
        backend was closed after the question began."""
        self.check_abandoned(clock)
        client = self.client()
        self.check_abandoned(clock)  # closed between the two: the request would go to the new client
        return client

    def check_abandoned(self, clock: QuestionClock) -> None:
        """Raise QuestionAbandoned when the backend was closed after the question of ``clock`` began."""
        if clock.generation != self._generation or exiting():
            raise QuestionAbandoned(f"openai backend: the question to model '{self.model}' at {self.base_url} "
                                    "was abandoned: the language model was closed")

    def ask(self, kind: str, prompt: str, n: int, params: dict[str, Any], parse: Callable[[list[str]], T],
            cache_extra: dict[str, Any] | None = None) -> tuple[T, _Reply]:
        """Ask ``prompt`` for ``n`` samples (one when the server decodes greedily) and parse them;
        cached by (backend, model, prompt, params). Structured output is asked for with the schema of
        ``kind`` (``answers.schema_of``: the layer's, or the one its method registered) while the
        server honours it (see the module docstring)."""
        profile = self.server_profile()
        if self.structured_mode == "json_schema" and profile.structured_output == REFUSED:
            raise ModelServerError(f"openai backend: {self.base_url} refused structured output "
                                   "(probed on first contact); "
                           "set openai.structured_output: auto (falls back to text) or off")
        if self.greedy:
            n = 1  # M identical answers are one answer (the profile says so)
        schema = schema_of(kind)
        if schema and self.structured_supported:
            try:
                return self._ask(kind, prompt, n, {**params, "response_format": response_format(schema)}, parse,
                                 cache_extra)
            except FormatRefused as exc:
                if self.structured_mode == "json_schema":
                    raise ModelServerError(f"openai backend: {self.base_url} refused structured output ({exc}); set "
                                   "openai.structured_output: auto (falls back to text) or off") from None
                self.structured_supported = False  # remembered for this backend's lifetime
        return self._ask(kind, prompt, n, params, parse, cache_extra)

    def _ask(self, kind: str, prompt: str, n: int, params: dict[str, Any], parse: Callable[[list[str]], T],
             cache_extra: dict[str, Any] | None = None) -> tuple[T, _Reply]:
        messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": prompt}]
        key_params = {"kind": kind, "n": n, **params, **(cache_extra or {})}
        key = cache_key(self.name, self.model, messages, key_params)
        if self.cache is not None:
            texts = self.cache.get(key)
            if texts is not None:
                try:
                    parsed = parse(texts)
                except UnusableAnswer:
                    pass  # an older cache entry this parser no longer accepts: ask again
                else:
                    with self._usage_lock:
                        self._usage.cache_hits += 1
                    return parsed, _Reply(texts, True, 0)
        error: UnusableAnswer | None = None
        requests = 0
        clock = QuestionClock(self.question_timeout_s, self.limiter.settings.wait_s)
        clock.generation = self._generation
        times = self.answer_times(kind)
        ticket = times.send(n, len(prompt))  # the server's time for this question (llm/waits.py)
        try:
            for attempt in range(self.parse_retries + 1):
                if attempt:
                    with self._usage_lock:
                        self._usage.retries += 1
                texts, used = self._sample(kind, messages, n, params, clock)
                requests += used
                try:
                    parsed = parse(texts)
                except UnusableAnswer as exc:
                    error = exc
                    continue
                if self.cache is not None:
                    self.cache.put(key, texts, self.name, self.model)
                return parsed, _Reply(texts, False, requests)
        except FormatRefused:
            times.discard(ticket)  # asked again in plain text: that question is the one measured
            raise
        except QuestionAbandoned:
            times.discard(ticket)  # closed before its answer: it says nothing of the server's time
            raise
        except LLMError:
            times.land(ticket, failed=True)
            raise
        finally:
            times.land(ticket)  # answered (an answer that does not read came all the same)
        assert error is not None
        raise UnusableAnswer(f"openai backend: model '{self.model}' {error} (after {self.parse_retries + 1} answer(s))")

    def _params(self, section: str, **extra: Any) -> dict[str, Any]:
        """Sampling and the answer budget of a question kind (its section of config/llm.yaml)."""
        opts = self.config.section(section)
        params: dict[str, Any] = {"temperature": float(opts["temperature"]), "max_tokens": int(opts["max_tokens"])}
        if "top_p" in opts:
            params["top_p"] = float(opts["top_p"])
        if opts.get("stop"):
            params["stop"] = list(opts["stop"])
        params.update(extra)
        return params

    def budget(self, section: str, **extra: Any) -> dict[str, Any]:
        """Sampling and answer budget of a question kind (its section of config/llm.yaml), for the
        ``openai`` answerers methods register (:mod:`llm_planner.llm.questions`)."""
        return self._params(section, **extra)

    # --------------------------------------------------------------- questions
    def object_positions(self, world: WorldInfo, obj_type: str, m: int | None = None,
                         seed: int | None = None) -> PositionSamples:
        opts = self.config.section("world_model")
        m = int(m or opts["samples"])
        prompt = world_model_prompt(world, obj_type)
        min_score = float(self.config.get("grounding.min_name_score"))

        def parse(texts: list[str]) -> list[tuple[tuple[str, str], ...]]:
            samples = [self._parse_positions(t, world, min_score) for t in texts]
            if not any(samples):
                raise UnusableAnswer(f"named no container or surface of the scene for '{obj_type}': "
                                     f"{_preview(texts)}")
            return [s for s in samples if s]

        with self._question():
            samples, reply = self.ask("world_model", prompt, m, self._params("world_model"), parse,
                                      {"seed": opts["seed"] if seed is None else seed})
        return PositionSamples(obj_type, tuple(samples), tuple(reply.texts), self._info(reply.cached, reply.requests))

    def _parse_positions(self, text: str, world: WorldInfo, min_score: float) -> tuple[tuple[str, str], ...]:
        """``Inside fridge, On kitchen table.`` (or a list, JSON, prose) -> ((inside, fridge), (on,
        kitchen_table)), grounded. A phrase without a relation takes the relation of the furniture it
        grounds to; rooms and names that ground to nothing are left out."""
        out: list[tuple[str, str]] = []
        grounder = self.resources.grounder
        rooms = {name_to_text(r) for r in world.rooms}
        for rel_word, place in read_positions(text):
            if not place or place in rooms:
                continue
            wanted = world.containers if rel_word in _INSIDE_WORDS else \
                world.surfaces if rel_word.startswith("on") else world.furniture
            hit = (grounder.ground_name(place, wanted, min_score)
                   or grounder.ground_name(place, world.furniture, min_score))
            if hit is None:
                continue
            entry = (world.relation(hit.name), hit.name)
            if entry not in out:
                out.append(entry)
        return tuple(out)

    def _examples(self, query: PolicyQuery, k: int) -> list[str]:
        return self.resources.policy_examples(query, k)

    def next_actions(self, query: PolicyQuery, m: int | None = None, k: int | None = None,
                     seed: int | None = None) -> ActionSamples:
        opts = self.config.section("policy")
        m = int(m or opts["samples"])
        k = int(opts["shots"] if k is None else k)
        with self._question():
            (texts, done, mapped), reply = self._policy_samples(query, m, k, "policy",
                                                                opts["seed"] if seed is None else seed)
        return ActionSamples(tuple(texts), done, tuple(reply.texts), self._info(reply.cached, reply.requests),
                             tuple(mapped))

    def _policy_samples(self, query: PolicyQuery, n: int, k: int, section: str,
                        seed: int) -> tuple[tuple[list[str], int, list[float]], _Reply]:
        # from_initial: SayCanPay's offline plan (seed 004 §4-5): o_0 and the plan so far, "done task"
        make_prompt = plan_prompt if query.from_initial else policy_prompt
        prompt = make_prompt(query.world, query.instruction, query.observation, query.history, self._examples(query, k))
        admissible = list(query.admissible)

        floor = self._nearest_floor()

        def parse(texts: list[str]) -> tuple[list[str], int, list[float]]:
            firsts = [first_action(t) for t in texts]
            done = sum(1 for f in firsts if f == "done")
            actions = [f for f in firsts if f and f != "done"]
            mapped: list[float] = []
            if not actions:
                if done:
                    return [], done, mapped
                raise UnusableAnswer(f"gave no next action: {_preview(texts)}")
            if admissible:
                actions, mapped = self.read_actions(actions, query.world, admissible, floor)
                if not actions:
                    raise UnusableAnswer(f"proposed actions that name no admissible action: "
                                         f"{_preview([f for f in firsts if f])}")
            return actions, done, mapped

        params = self._params(section)
        if query.from_initial and self.config.section(section).get("plan_stop"):
            params["stop"] = list(self.config.section(section)["plan_stop"])  # the plan prompt's next block
        return self.ask(section, prompt, n, params, parse, {"seed": seed})

    def admissible_texts(self, texts: Sequence[str], world: WorldInfo, admissible: Sequence[Action]) -> list[str]:
        """Sampled actions as the policy compares them (§2.3, CosineSim to the admissible actions): a
        text whose most similar admissible action is one it names stays; one whose similarity prefers
        another becomes the sentence of an admissible action it names; one that names none is
        dropped (a sample never votes for an action it did not state)."""
        return self.read_actions(texts, world, admissible, None)[0]

    def read_actions(self, texts: Sequence[str], world: WorldInfo, admissible: Sequence[Action],
                     nearest_floor: float | None) -> tuple[list[str], list[float]]:
        """:meth:`admissible_texts`, and with ``nearest_floor`` a text that names no admissible action
        becomes the sentence of its most similar admissible action when their cosine is at least the
        floor (LLM-MCTS §2.3 and its limitations: "the action will be translated to other admissible
        actions"; Huang et al. 2022 map each generated step to the nearest admissible one by
        Sentence-BERT cosine). Returns the texts kept, in sample order, and the cosine of each mapped
        sample (one entry per mapped sample, so the caller can count them and their similarity)."""
        grounder = self.resources.grounder
        min_name = float(self.config.get("grounding.min_name_score"))
        min_action = float(self.config.get("grounding.min_action_score"))
        unique = list(dict.fromkeys(texts))
        sims = grounder.action_similarities(unique, list(admissible))
        kept: dict[str, tuple[str, float | None] | None] = {}
        for text, row in zip(unique, sims, strict=True):
            best = admissible[int(row.argmax())]
            if float(row.max()) >= min_action and grounder.names_action(text, best, world, min_name):
                kept[text] = (text, None)
                continue
            named = next((a for a in admissible if grounder.names_action(text, a, world, min_name)), None)
            if named is not None:
                kept[text] = (action_to_text(named), None)
            elif nearest_floor is not None and float(row.max()) >= nearest_floor:
                kept[text] = (action_to_text(best), float(row.max()))
            else:
                kept[text] = None
        read = [k for k in (kept[t] for t in texts) if k]
        return [text for text, _ in read], [sim for _, sim in read if sim is not None]

    def _nearest_floor(self) -> float | None:
        """The cosine floor of ``policy.inadmissible: nearest``; None when such samples are dropped."""
        if str(self.config.get("policy.inadmissible")) != "nearest":
            return None
        return float(self.config.get("policy.inadmissible_floor"))

    def translate(self, world: WorldInfo, directive: str) -> GoalTuples:
        prompt = translate_prompt(world, directive, self.resources.translation_examples(directive, world))

        def parse(texts: list[str]) -> list[tuple[str, str, str, int]]:
            return goal_items(texts[0] if texts else "")

        with self._question():
            items, reply = self.ask("translate", prompt, 1, self._params("translate"), parse)
        return GoalTuples(tuple(items), reply.texts[0] if reply.texts else "", self._info(reply.cached, reply.requests))

    def _say_samples(self, query: PolicyQuery, n: int, k: int) -> tuple[list[str], AnswerInfo]:
        (texts, _done, _mapped), reply = self._policy_samples(query, n, k, "candidates", 0)
        return texts, self._info(reply.cached, reply.requests)


def goal_items(text: str) -> list[tuple[str, str, str, int]]:
    """The goal tuples of a translation answer (``answers.read_goal_tuples``); UnusableAnswer says why
    an answer states no whole goal (declined, unreadable, no tuple, a relation other than INSIDE/ON)."""
    try:
        items = read_goal_tuples(text)
    except Unparsable as exc:
        raise UnusableAnswer(f"gave an unreadable formal goal ({exc}): {_preview([text])}") from None
    if not items:
        what = "declined" if looks_like_refusal(text) else "gave no formal goal tuple (REL, object, destination, count)"
        raise UnusableAnswer(f"{what}: {_preview([text])}")
    others = sorted({rel for rel, *_ in items if rel not in (INSIDE, ON)})
    if others:
        raise UnusableAnswer(f"used relation(s) {', '.join(others)}; only INSIDE and ON exist: {_preview([text])}")
    return items


def _log_profile(profile: ServerProfile) -> None:
    """Say once per server and process what it honours (a warning when the backend must adapt)."""
    adapted = profile.probed and (profile.greedy or IGNORED in (profile.n, profile.structured_output)
                                  or REFUSED in (profile.n, profile.structured_output))
    (LOG.warning if adapted or not profile.probed else LOG.info)("openai backend: %s", profile.summary())
