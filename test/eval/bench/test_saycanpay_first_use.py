"""bench saycanpay on a machine without trained models trains them first (small settings here)."""
from __future__ import annotations

import json

from llm_planner.cli import main
from llm_planner.methods.saycanpay.models import Models


def test_bench_trains_can_and_pay_on_first_use(tmp_path, capsys):
    models = tmp_path / "models"
    config = tmp_path / "small.yaml"
    config.write_text(f"training: {{trajectories: 24, epochs: 2, model_dir: {models}, workers: 1}}\n")
    results = tmp_path / "r.json"
    assert main(["bench", "saycanpay", "--config", str(config), "--methods", "beam_action:saycanpay", "--splits",
                 "test", "--n", "2", "--workers", "1", "--no-progress", "--json", str(results)]) == 0
    out = capsys.readouterr().out
    assert f"no trained SayCanPay Can/Pay models in {models}: training them now" in out
    assert (models / "meta.json").is_file() or any(models.iterdir())
    assert json.loads(results.read_text())["rows"][0]["episodes"] == 2
    assert main(["bench", "saycanpay", "--config", str(config), "--methods", "beam_action:saycanpay", "--splits",
                 "test", "--n", "1", "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "training them now" not in out  # the second run reuses them
    assert f"models: {models} (sha256 {Models.digest(models)})" in out  # and says which they are
    assert main(["bench", "saycanpay", "--models", str(tmp_path / "nowhere"), "--methods", "beam_action:saycanpay",
                 "--splits", "test", "--n", "1", "--workers", "1", "--no-progress"]) == 1
    assert "llm-planner train saycanpay" in capsys.readouterr().err  # a directory the user named is not trained into
