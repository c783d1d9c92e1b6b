"""Fixtures of the served stand-in's tests: the served model over the offline backend, and stand-in
servers started with options (stopped after the test)."""
from __future__ import annotations

import pytest

from llm_planner.llm.offline.serve import ModelServer
from llm_planner.llm.offline.serve_options import ServeOptions
from llm_planner.llm.offline.served import ServedModel


@pytest.fixture(scope="module")
def served(offline) -> ServedModel:
    return ServedModel(offline)


@pytest.fixture
def server(served):
    servers = []

    def start(**options):
        s = ModelServer(ServeOptions(warm_up=False, **options), served).start()
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()
