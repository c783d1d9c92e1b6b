"""bench saycanpay: the paper's decoder by default, the oracle decoder as a named variant, and the
header saying which Say probabilities ran and whether Greedy-Token could run."""
from __future__ import annotations

import json

import pytest

from llm_planner_eval.bench.saycanpay import parse_method
from llm_planner.cli import main
from llm_planner.errors import ConfigError


def test_method_names_carry_the_decoder():
    assert parse_method("beam_action:saycanpay") == {"strategy": "beam_action", "score": "saycanpay",
                                                     "can": "learned", "variant": "paper"}
    assert parse_method("greedy_action:saycan+oracle_can@oracle")["variant"] == "oracle"
    assert parse_method("greedy_token")["strategy"] == "greedy_token"
    with pytest.raises(ConfigError, match="@oracle"):
        parse_method("beam_action:saycanpay@elsewhere")


def test_both_decoders_run_side_by_side_and_the_header_says_which(tmp_path, capsys):
    results = tmp_path / "r.json"
    assert main(["bench", "saycanpay", "--methods", "greedy_action:say", "--decoders", "paper,oracle", "--splits",
                 "test", "--n", "1", "--workers", "1", "--no-progress", "--json", str(results)]) == 0
    out = capsys.readouterr().out
    assert "decoders: paper, oracle" in out and "Say probabilities: samples" in out
    assert "Greedy-Token: not run (the offline backend offers no token log-probabilities)" in out
    data = json.loads(results.read_text())
    assert [r["method"] for r in data["rows"]] == ["greedy_action:say", "greedy_action:say@oracle"]
    assert {e["decoder"] for e in data["episodes"]} == {"paper", "oracle"}
    assert all(e["success"] for e in data["episodes"])
    assert main(["bench", "saycanpay", "--decoders", "neither", "--n", "1", "--no-progress"]) == 1
    assert "--decoders" in capsys.readouterr().err
