"""What a model server honours, found on first contact with a few tiny requests.

OpenAI-compatible servers differ in what they do with a request's parameters, mostly silently:
``transformers serve`` ignores ``n``, ``response_format`` and ``logprobs`` and decodes greedily when
its model's generation config lacks ``do_sample`` (whatever ``temperature`` says); llama.cpp's
server ignores ``n``; older vLLM refuses ``response_format``. Every method that estimates a
distribution from M samples (LLM-MCTS §2.2-2.3, SayCanPay's Say, STaLM's N_batch) is wrong without
a word when the M "samples" are M copies of one answer. So the backend asks first
(:func:`probe_server`), once per ``base_url`` and model in a process (:func:`server_profile`):

=================  ==========================================================================
probe              what it tells
=================  ==========================================================================
``n``              a request with ``n = samples``: that many choices (honoured), one (ignored)
                   or HTTP 400/422 (refused)
sampling           ``samples`` answers at ``temperature`` 1 to a question with many right
                   answers (a random number): all identical means the server decodes greedily
                   (thinking preambles left out; an answer cut inside its thought: unknown)
structured output  ``response_format`` with a one-field JSON schema: bare JSON of the schema
                   (honoured), other text (ignored) or HTTP 400/422 (refused)
logprobs           ``logprobs: true``: token log-probabilities in the choice, or not
=================  ==========================================================================

The probe costs 3 to 5 requests of at most ``openai.probe.max_tokens`` tokens, each bounded by
``openai.probe.timeout_s``; its requests are not counted in the backend's usage (they are in the
profile). A server that cannot be probed (unreachable, errors) is assumed to honour what
config/llm.yaml says (``n_in_one_request``, ``structured_output``), and asked again after
``openai.probe.retry_after_s``.
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from llm_planner.llm.answers import strip_reasoning

HONOURED, IGNORED, REFUSED, UNKNOWN = "honoured", "ignored", "refused", "unknown"
SAMPLING, GREEDY = "sampling", "greedy"

#: A question with many right answers: identical answers at temperature 1 mean greedy decoding.
PROBE_PROMPT = "Write a random whole number between 1 and 1000000. Answer with the number only."
PROBE_SCHEMA = {"type": "object", "properties": {"number": {"type": "integer"}}, "required": ["number"],
                "additionalProperties": False}


@dataclass(frozen=True)
class ProbeSettings:
    """``openai.probe`` of config/llm.yaml."""

    enabled: bool = True
    samples: int = 3            # answers compared to tell sampling from greedy decoding (and n asked)
    max_tokens: int = 24
    temperature: float = 1.0
    timeout_s: float = 30.0     # per probe request
    retry_after_s: float = 60.0  # a failed probe is tried again after this long

    @staticmethod
    def from_config(opts: dict[str, Any]) -> ProbeSettings:
        p = dict(opts.get("probe") or {})
        return ProbeSettings(enabled=bool(p.get("enabled", True)), samples=max(2, int(p.get("samples", 3))),
                             max_tokens=int(p.get("max_tokens", 24)), temperature=float(p.get("temperature", 1.0)),
                             timeout_s=float(p.get("timeout_s", 30.0)),
                             retry_after_s=float(p.get("retry_after_s", 60.0)))


@dataclass(frozen=True)
class ServerProfile:
    """What one server (``base_url`` and model) honours; ``probed`` False: not known (see ``error``)."""

    base_url: str
    model: str
    probed: bool = False
    n: str = UNKNOWN
    sampling: str = UNKNOWN
    structured_output: str = UNKNOWN
    logprobs: str = UNKNOWN
    s_per_request: float = 0.0      # of a probe request (a few tokens)
    tokens_per_s: float = 0.0
    requests: int = 0
    seconds: float = 0.0
    error: str = ""
    answers: tuple[str, ...] = field(default=())
    when: float = 0.0               # time.monotonic() of the probe

    @property
    def greedy(self) -> bool:
        return self.sampling == GREEDY

    def summary(self) -> str:
        """One line for logs, benchmark headers and task results."""
        where = f"{self.model} at {self.base_url}"
        if not self.probed:
            return f"{where}: not probed ({self.error or 'probe off'}); assuming config/llm.yaml's settings"
        parts = [f"n {self.n}", "samples " + ("identical at temperature > 0 (greedy decoding: one sample is asked "
                                               "per question, M identical answers are one answer)"
                                               if self.greedy else self.sampling),
                 f"structured output {self.structured_output}", f"logprobs {self.logprobs}",
                 f"{self.s_per_request:.2f} s per tiny request" + (f", {self.tokens_per_s:.0f} tokens/s"
                                                                   if self.tokens_per_s else "")]
        return f"{where}: " + "; ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("when")
        out["answers"] = list(self.answers)
        return out


# ------------------------------------------------------------------------------ probing
def probe_server(client: Any, base_url: str, model: str, settings: ProbeSettings) -> ServerProfile:
    """Probe one server with the ``openai`` client ``client`` (see the module docstring); never
    raises: a failure gives a profile with ``probed`` False and the reason."""
    import openai  # noqa: PLC0415 - heavy optional: the openai client only on the served-model path

    started = time.monotonic()
    requests = 0
    timings: list[tuple[float, int]] = []

    def create(**kwargs: Any) -> Any:
        nonlocal requests
        requests += 1
        sent = time.monotonic()
        response = client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": PROBE_PROMPT}], max_tokens=settings.max_tokens,
            timeout=settings.timeout_s, **kwargs)
        usage = getattr(response, "usage", None)
        timings.append((time.monotonic() - sent, int(getattr(usage, "completion_tokens", 0) or 0)))
        return response

    def refused(exc: Exception) -> bool:
        return isinstance(exc, openai.APIStatusError) and exc.status_code in (400, 422)

    def fail(error: str) -> ServerProfile:
        return ServerProfile(base_url, model, probed=False, requests=requests, error=error,
                             seconds=time.monotonic() - started, when=time.monotonic())

    k = settings.samples
    sample_args = {"temperature": settings.temperature, "top_p": 1.0}
    try:
        try:
            texts = [_text(c) for c in create(n=k, **sample_args).choices]
            n_state = HONOURED if len(texts) >= k else IGNORED
        except openai.APIStatusError as exc:
            if not refused(exc):
                raise
            texts, n_state = [], REFUSED
        if len(texts) < k:  # the other samples one request each, at once
            with ThreadPoolExecutor(max_workers=k, thread_name_prefix="probe") as pool:
                more = list(pool.map(lambda _i: _text(create(**sample_args).choices[0]), range(k - len(texts))))
            texts = (texts + more)[:k]
        answers = [strip_reasoning(t) for t in texts]  # a thinking model's thought is not its answer
        sampling = UNKNOWN if not all(answers) else GREEDY if len({a for a in answers}) == 1 else SAMPLING

        def structured() -> str:
            try:
                response = create(temperature=0.0, response_format={"type": "json_schema", "json_schema": {
                    "name": "number", "strict": True, "schema": PROBE_SCHEMA}})
            except openai.APIStatusError as exc:
                if refused(exc):
                    return REFUSED
                raise
            try:
                data = json.loads(strip_reasoning(_text(response.choices[0])))
            except (ValueError, IndexError):
                return IGNORED
            return HONOURED if isinstance(data, dict) and "number" in data else IGNORED

        def logprobs() -> str:
            try:
                response = create(temperature=0.0, logprobs=True)
            except openai.APIStatusError as exc:
                if refused(exc):
                    return REFUSED
                raise
            choice = response.choices[0] if response.choices else None
            content = getattr(getattr(choice, "logprobs", None), "content", None)
            return HONOURED if content else IGNORED

        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="probe") as pool:
            s_future, l_future = pool.submit(structured), pool.submit(logprobs)
            structured_state, logprobs_state = s_future.result(), l_future.result()
    except openai.APITimeoutError:
        return fail(f"no answer to a probe request within {settings.timeout_s:g} s (openai.probe.timeout_s)")
    except openai.APIConnectionError as exc:
        return fail(f"cannot connect ({str(exc)[:120]})")
    except openai.APIStatusError as exc:
        return fail(f"HTTP {exc.status_code} to a probe request")
    except Exception as exc:  # noqa: BLE001 - a probe never takes the backend down
        return fail(f"{type(exc).__name__}: {str(exc)[:120]}")
    tiny = min((s for s, _t in timings), default=0.0)
    tokens = sum(t for _s, t in timings)
    seconds = sum(s for s, _t in timings)
    return ServerProfile(base_url, model, probed=True, n=n_state, sampling=sampling,
                         structured_output=structured_state, logprobs=logprobs_state, s_per_request=tiny,
                         tokens_per_s=tokens / seconds if seconds > 0 and tokens else 0.0, requests=requests,
                         seconds=time.monotonic() - started, answers=tuple(t[:40] for t in texts),
                         when=time.monotonic())


def _text(choice: Any) -> str:
    message = getattr(choice, "message", None)
    return str(getattr(message, "content", None) or "")


# ------------------------------------------------------------------------------ per process
_PROFILES: dict[tuple[str, str], ServerProfile] = {}
_LOCKS: dict[tuple[str, str], threading.Lock] = {}
_REGISTRY_LOCK = threading.Lock()


def server_profile(base_url: str, model: str, probe: Callable[[], ServerProfile], settings: ProbeSettings,
                   on_new: Callable[[ServerProfile], None] | None = None) -> ServerProfile:
    """The profile of (``base_url``, ``model``) in this process: probed once (``probe()``), the
    others waiting for it; a failed probe is tried again after ``retry_after_s``. ``on_new`` is
    called with a profile just probed (the caller logs it: once per server and process)."""
    key = (base_url, model)
    with _REGISTRY_LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        known = _PROFILES.get(key)
        if known is not None and (known.probed or time.monotonic() - known.when < settings.retry_after_s):
            return known
        profile = probe()
        _PROFILES[key] = profile
    if on_new is not None:
        on_new(profile)
    return profile


def forget_profiles() -> None:
    """Forget every probed server (tests; a server restarted with other settings)."""
    with _REGISTRY_LOCK:
        _PROFILES.clear()
