"""Whether an OpenAI-compatible model server can answer now: reachability (``GET <base_url>/models``)
and, for a configuration of the openai backend, the key a server asks for. Used where a switch to
the openai backend is checked before it is accepted, and by the nodes' ``model server`` status
(with :func:`llm_planner.llm.liveness.accepts_connections`: busy or gone)."""
from __future__ import annotations

import os
import urllib.error
import urllib.parse
import urllib.request

from llm_planner.errors import LlmPlannerError
from llm_planner.llm.config import load_llm_config
from llm_planner.llm.openai_backend import OPENAI_HOSTS


def reach(base_url: str, timeout_s: float) -> tuple[bool, str]:
    """(whether the server at ``base_url`` answers ``GET /models`` within ``timeout_s``, what it did):
    any HTTP answer counts as answering."""
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=timeout_s):
            pass
        return True, "answers"
    except urllib.error.HTTPError as exc:  # it answered, if only with an error status
        return True, f"answers (HTTP {exc.code} on /models)"
    except (urllib.error.URLError, OSError) as exc:
        return False, f"not answering ({getattr(exc, 'reason', exc)})"


def openai_unusable(llm_config: str, timeout_s: float) -> str:
    """Why the openai backend with the LLM configuration ``llm_config`` ("" for config/llm.yaml or
    ``$LLM_PLANNER_LLM_CONFIG``) cannot answer now, or "": its server must answer ``GET /models``
    within ``timeout_s``, with a key where it asks for one (HTTP 401/403, or OpenAI's own host)."""
    try:
        opts = load_llm_config(llm_config or None).section("openai")
    except LlmPlannerError as exc:
        return f"the LLM configuration cannot be read: {exc}"
    base_url, key_env = str(opts["base_url"]).rstrip("/"), str(opts["api_key_env"])
    has_key = bool(os.environ.get(key_env, "").strip())
    if not has_key and (urllib.parse.urlparse(base_url).hostname or "") in OPENAI_HOSTS:
        return f"the model server {base_url} needs an API key: set {key_env} in the nodes' environment"
    reachable, detail = reach(base_url, timeout_s)
    if not reachable:
        return (f"the model server {base_url} is {detail} within {timeout_s:g} s (llm_probe_timeout_s); start it "
                "or give an llm_config whose openai.base_url answers")
    if not has_key and ("HTTP 401" in detail or "HTTP 403" in detail):
        return f"the model server {base_url} {detail}: it needs an API key; set {key_env} in the nodes' environment"
    return ""
