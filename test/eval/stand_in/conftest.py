"""The stand-in's tests use the LLM-layer fixtures (test/llm/conftest.py): the offline backend it
serves, the apartments, and ``llm-planner serve`` stand-ins over HTTP in this process."""
from test.llm.conftest import (  # noqa: F401  (fixtures, found by pytest through these names)
    _isolated_cache,
    dataset,
    embedder,
    offline,
    seen,
    seen_world,
    served,
    server,
    unseen,
)
