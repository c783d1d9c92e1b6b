"""How a client reaches a model server that this package started (``llm-planner serve``, with or
without a local model behind ``transformers serve``): the overrides of ``config/llm.yaml`` that
point the openai backend at it, and the YAML file ``--llm-config`` and ``$LLM_PLANNER_LLM_CONFIG``
read. Kept in ``llm/`` (not ``llm/offline/``) because both kinds of server share it."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import yaml

#: the environment variable whose value the started servers accept as API key (they need none)
SERVE_KEY_ENV = "LLM_PLANNER_SERVE_KEY"


class ServedClientConfig:
    """Mixed into a running server: ``base_url`` and ``model_name`` are set by the subclass."""

    model_name: str

    if TYPE_CHECKING:
        @property
        def base_url(self) -> str: ...  # an attribute or a property of the subclass

    def client_config(self) -> dict[str, Any]:
        """Overrides of ``config/llm.yaml`` that point the openai backend at this server."""
        return {"backend": "openai", "openai": {"base_url": self.base_url, "model": self.model_name,
                                                 "api_key_env": SERVE_KEY_ENV}}

    def write_client_config(self, path: str | os.PathLike) -> str:
        """Write :meth:`client_config` as YAML (give it to ``--llm-config``, or to the nodes of a
        launched graph through ``$LLM_PLANNER_LLM_CONFIG``); returns the path."""

        with open(path, "w") as handle:
            yaml.safe_dump(self.client_config(), handle)
        return str(path)
