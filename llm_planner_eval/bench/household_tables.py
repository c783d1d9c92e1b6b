"""The tables of ``llm-planner bench household``: success rates in the layout of LLM-MCTS Tables 1 and 2
(mean +- standard error over seeds), the cost of a decision (App. E), the latency grid, and success
against the served model's error rate (``--error-rates``) as a table and a plot."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from statistics import median
from typing import TYPE_CHECKING, Any

from llm_planner_eval.bench.error_rates import Curves, seed_levels
from llm_planner_eval.bench.error_rates import format_error_rate_table as table
from llm_planner_eval.bench.error_rates import plot_error_rates as plot
from llm_planner_eval.bench.report import fmt_pm, format_table, mean_stderr

if TYPE_CHECKING:
    from pathlib import Path

    from llm_planner_eval.bench.method_spec import MethodSpec
    from llm_planner_eval.bench.report import BenchReport

#: Labels of the seed's tables for the methods (Tables 1 and 2).
PAPER_NAMES = {
    "llm_mcts": "GPT3.5-MCTS (Ours)", "uct": "UCT [21]", "l_policy": "GPT3.5 Policy [18]",
    "no_heuristic_policy": "MCTS (No Heuristic Policy)", "uniform_prior": "MCTS (Uniform State Prior)",
    "fully_observable": "MCTS (Fully Observable)",
}


def fill_rows(report: BenchReport, records: list[dict[str, Any]], homes: Sequence[tuple[str, str]],
              methods: Sequence[MethodSpec], suites: Sequence[str], seeds: Iterable[int]) -> None:
    """One row per (home, method, suite): success mean ± stderr over seeds, and cost figures."""

    for home, _ in homes:
        for spec in methods:
            for suite in suites:
                cell = [r for r in records if r["home"] == home and r["method"] == spec.label and r["suite"] == suite]
                if not cell:
                    continue
                per_seed = []
                for seed in seeds:
                    runs = [r for r in cell if r["seed"] == seed]
                    if runs:
                        per_seed.append(sum(r["success"] for r in runs) / len(runs))
                mean, err = mean_stderr(per_seed)
                extra = {} if spec.latency is None else {"latency_s": spec.latency, "method_base": spec.base_label}
                if spec.error_rate is not None:  # --error-rates: the served model's share of wrong answers
                    extra.update(error_rate=spec.error_rate, method_base=spec.base_label)
                elif report.config.get("serve_style"):  # a served model: --serve-error-rate P (0: right answers)
                    extra.update(error_rate=float((report.config.get("error_rates") or [0.0])[0]))
                moved = sum(int(r.get("unrelated_moves", 0) or 0) for r in cell)
                report.add_row(spec.label, suite, len(cell), mean, err, home=home, unrelated_moves=moved, **extra,
                               **cost_figures(cell), **model_figures(cell))


def cost_figures(records: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Per-decision cost of a set of episodes (sums over episodes, divided once)."""
    def total(key: str) -> float:
        return float(sum(r.get(key, 0) or 0 for r in records))

    decisions = max(total("decisions"), 1.0)
    seconds = total("decide_seconds")
    search = total("search_seconds")
    wait = total("wait_seconds")  # the search waiting for pi answers (inline or in waves)
    sims = total("simulations")
    return {
        "decisions": int(total("decisions")),
        "llm_requests_per_decision": total("llm_requests") / decisions,
        "policy_visits_per_decision": total("policy_visits") / decisions,
        "policy_queries_per_decision": total("policy_queries") / decisions,
        "seconds_per_decision": seconds / decisions,
        "median_seconds_per_decision": float(median([d for r in records for d in r.get("decision_seconds") or []]
                                                    or [0.0])),
        "http_requests_per_decision": total("http_requests") / decisions,
        "prompt_tokens_per_decision": total("prompt_tokens") / decisions,
        "completion_tokens_per_decision": total("completion_tokens") / decisions,
        "decisions_out_of_time": int(total("out_of_time")),
        "llm_seconds_per_decision": wait / decisions,
        "search_seconds_per_decision": (search - wait) / decisions,
        "waves_per_decision": total("waves") / decisions,
        "peak_in_flight": int(max((r.get("peak_in_flight", 0) or 0 for r in records), default=0)),
        "simulations_per_decision": sims / decisions,
        "simulations_per_second": sims / search if search > 0 else 0.0,
        "simulations_per_second_without_llm": sims / (search - wait) if sims and search - wait > 0 else 0.0,
        "steps_mean": total("steps") / max(len(records), 1),
        "planning_time_s": total("planning_time_s"),
        **wait_figures(records),
    }


def wait_figures(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What the waits for the model bought over a set of episodes: the waits (the root's question, a
    wave, a kept root's late question) and the share whose answers came within them (None: no wait),
    the roots not waited for because their answers came too late or the server was busy with earlier
    questions, and the questions skipped and why: the policy's reliability under its floor (and the
    searches that asked nothing for it), or late questions already running."""
    def total(key: str) -> int:
        return int(sum(r.get(key, 0) or 0 for r in records))

    waits = total("waits")
    return {"waits": waits, "waits_in_time": total("waits_in_time"),
            "waits_in_time_share": total("waits_in_time") / waits if waits else None,
            "roots_unwaited": total("root_unwaited"), "skipped_unreliable": total("skipped_unreliable"),
            "skipped_busy": total("skipped_busy"), "gated_searches": total("gated_searches")}


def wait_cells(f: dict[str, Any]) -> list[str]:
    """The wait columns of a row: waits in time (share and counts), roots not waited for, questions
    skipped (policy under its reliability floor / late questions running)."""
    share = "-" if f["waits_in_time_share"] is None else \
        f"{f['waits_in_time_share']:.2f} ({f['waits_in_time']}/{f['waits']})"
    return [share, str(f["roots_unwaited"]), f"{f['skipped_unreliable']} / {f['skipped_busy']}"]


def model_figures(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """How the model's answers read over a set of episodes: the policy's samples and the share that
    read as admissible actions (its reliability), the share read as their nearest admissible action
    (``policy.inadmissible: nearest``) and their mean cosine, the world model's reliability (the
    prior's share of samples that named a place), the deepest tree node and the anytime figures.
    None where the episodes asked no such question."""
    def total(key: str) -> float:
        return float(sum(r.get(key, 0) or 0 for r in records))

    samples, read, mapped = total("policy_samples"), total("policy_samples_read"), total("policy_samples_mapped")
    world = [float(r["world_model_reliability"]) for r in records if r.get("world_model_reliability") is not None]
    return {
        "policy_samples": int(samples),
        "policy_reliability": read / samples if samples else None,
        "mapped_share": mapped / samples if samples else None,
        "mapped_similarity": total("mapped_similarity_sum") / mapped if mapped else None,
        "world_model_reliability": sum(world) / len(world) if world else None,
        "max_tree_depth": int(max((r.get("max_tree_depth", 0) or 0 for r in records), default=0)),
        "provisional_nodes_per_decision": total("provisional_nodes") / max(total("decisions"), 1.0),
        "provisional_root_share": total("root_provisional") / max(total("decisions"), 1.0),
        "late_answers": int(total("late_answers")),
    }


def reliability_table(report: BenchReport, methods: Sequence[MethodSpec]) -> str:
    """One row per method that asked a model: how its answers read and how the tree grew."""

    def share(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f}"

    body = []
    for spec in methods:
        cell = [r for r in report.episodes if r["method"] == spec.label]
        f = model_figures(cell)
        if not cell or (not f["policy_samples"] and f["world_model_reliability"] is None):
            continue
        body.append([spec.label, f["policy_samples"], share(f["policy_reliability"]), share(f["mapped_share"]),
                     share(f["mapped_similarity"]), share(f["world_model_reliability"]), f["max_tree_depth"],
                     f"{f['provisional_nodes_per_decision']:.1f}", f"{f['provisional_root_share']:.2f}",
                     f["late_answers"]])
    if not body:
        return ""
    header = ["method", "policy samples", "read (reliability)", "read as nearest", "cosine of nearest",
              "world model reliability", "deepest node", "provisional nodes/dec", "provisional roots (share)",
              "late answers"]
    return format_table(header, body, title="How the model's answers read (share of samples) and how the tree grew")


def format_report(report: BenchReport, homes: Sequence[tuple[str, str]], methods: Sequence[MethodSpec],
                  suites: Sequence[str], sims: int, wall: float) -> str:
    out = []
    n_seeds = report.config["seeds"]
    n_eps = report.config["episodes_per_seed"]
    for home, scene in homes:
        title = (f"Success rate (%) within {report.config['max_steps']} steps, {home} apartment ({scene}); "
                 f"mean ± stderr over {n_seeds} seeds x {n_eps} episodes; backend {report.backend}; "
                 f"N={sims} simulations; unrelated moves: objects grabbed that no goal names, over all episodes")
        out.append("\n" + success_table(report, home, title))
    served = any(r.get("http_requests") for r in report.episodes)  # a model server was asked: its costs too
    header = ["method", "paper's name", "decisions", "LLM req/dec", "policy visits/dec", "policy nodes/dec",
              "s/decision", "median s/dec", "LLM wait s/dec", "waits in time", "roots not waited for",
              "skipped: unreliable / busy", "sims/s", "sims/s w/o LLM"]
    if served:
        header += ["HTTP req/dec", "prompt tok/dec", "answer tok/dec", "decisions out of time"]
    body = []
    for spec in methods:
        cell = [r for r in report.episodes if r["method"] == spec.label]
        if not cell:
            continue
        f = cost_figures(cell)
        row = [spec.label, PAPER_NAMES.get(spec.planner, ""), f["decisions"],
               f"{f['llm_requests_per_decision']:.1f}", f"{f['policy_visits_per_decision']:.1f}",
               f"{f['policy_queries_per_decision']:.1f}", f"{f['seconds_per_decision']:.3f}",
               f"{f['median_seconds_per_decision']:.3f}", f"{f['llm_seconds_per_decision']:.3f}", *wait_cells(f),
               f"{f['simulations_per_second']:.0f}" if f["simulations_per_second"] else "-",
               f"{f['simulations_per_second_without_llm']:.0f}" if f["simulations_per_second_without_llm"] else "-"]
        if served:
            row += [f"{f['http_requests_per_decision']:.1f}", f"{f['prompt_tokens_per_decision']:.0f}",
                    f"{f['completion_tokens_per_decision']:.0f}", f["decisions_out_of_time"]]
        body.append(row)
    out.append("\n" + format_table(header, body, title=(
        f"Cost per decision (all apartments and suites; backend {report.backend}; paper, App. E: GPT3.5-MCTS "
        f"67.83 ± 18.92 s, GPT3.5 Policy 1.19 s, UCT 120 s)")))
    trust = reliability_table(report, methods)
    if trust:
        out.append("\n" + trust)
    out.append(f"\nwall time {wall:.0f} s for {len(report.episodes)} episodes")
    return "\n".join(out)


def success_table(report: BenchReport, home: str, title: str) -> str:
    """Methods x suites success (mean ± stderr over seeds, Tables 1/2), and per method the objects
    its episodes grabbed that no goal names (a robot must not shuffle someone's things)."""

    rows = [r for r in report.rows if r["home"] == home]
    suites = list(dict.fromkeys(r["split"] for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    cells = {(r["method"], r["split"]): fmt_pm(r["success_rate"], r.get("stderr", 0.0), 100.0, 1) for r in rows}
    moved = {m: sum(int(e.get("unrelated_moves", 0) or 0) for e in report.episodes
                    if e["home"] == home and e["method"] == m) for m in methods}
    body = [[m, *[cells.get((m, s), "-") for s in suites], moved[m]] for m in methods]
    return format_table(["method", *suites, "unrelated moves"], body, title=title)


def format_latency_table(report: BenchReport, methods: Sequence[MethodSpec], suites: Sequence[str],
                         in_flight: dict[MethodSpec, int]) -> str:
    """Per latency and method: success per suite, requests, rounds of waiting, wall and search seconds
    per decision; then, per latency, each concurrent method's wall time over the sequential one's."""

    rows = {(r["method"], r["split"]): r for r in report.rows}
    header = ["latency", "method", "mode", *suites, "LLM req/dec", "rounds/dec", "wall s/dec", "search s/dec",
              "LLM wait s/dec", "waits in time", "roots not waited for", "skipped: unreliable / busy"]
    body, notes = [], []
    for latency in dict.fromkeys(m.latency for m in methods):
        group = [m for m in methods if m.latency == latency]
        cost: dict[MethodSpec, dict[str, float]] = {}
        for spec in group:
            cell = [r for r in report.episodes if r["method"] == spec.label]
            if not cell:
                continue
            cost[spec] = f = cost_figures(cell)
            k = in_flight[spec]
            body.append([f"{latency:g} s", spec.base_label, "sequential" if k == 1 else f"concurrent ({k} in flight)",
                         *[fmt_pm(rows[(spec.label, s)]["success_rate"], rows[(spec.label, s)]["stderr"], 100.0)
                           if (spec.label, s) in rows else "-" for s in suites],
                         f"{f['llm_requests_per_decision']:.1f}",
                         f"{f['waves_per_decision']:.2f}" if k > 1 else "= req",
                         f"{f['seconds_per_decision']:.2f}", f"{f['search_seconds_per_decision']:.3f}",
                         f"{f['llm_seconds_per_decision']:.2f}", *wait_cells(f)])
        for seq in [m for m in cost if in_flight[m] == 1]:
            for con in [m for m in cost if in_flight[m] > 1]:
                ratio = cost[con]["seconds_per_decision"] / max(cost[seq]["seconds_per_decision"], 1e-9)
                gaps = ", ".join(
                    f"{s} {100 * (rows[(con.label, s)]['success_rate'] - rows[(seq.label, s)]['success_rate']):+.1f}"
                    for s in suites if (con.label, s) in rows and (seq.label, s) in rows)
                notes.append(f"{latency:g} s: {con.base_label} takes {ratio:.2f} of the wall time per decision of "
                             f"{seq.base_label} (1/{1 / ratio:.1f}); success difference (points): {gaps}")
    cfg = report.config
    title = (f"LLM-MCTS against a served model (llm-planner serve, style {cfg.get('serve_style')}; backend openai; "
             f"{cfg['seeds']} seeds x {cfg['episodes_per_seed']} episodes per suite and method; {cfg['workers']} "
             f"worker processes running episodes side by side; rounds = waits for a wave of questions; search = "
             f"the search's own time, without waiting for answers)")
    return format_table(header, body, title=title, keys=3) + ("\n" + "\n".join(notes) if notes else "")


# --------------------------------------------------------------------------- model quality (--error-rates)
def _by_rate(report: BenchReport, methods: Sequence[MethodSpec], suites: Sequence[str]) -> Curves:
    """The curves of the grid: per base method and suite the points (rate, success, stderr) in the
    order of the rates."""

    rows = {(r["method"], r["split"]): r for r in report.rows}
    curves = Curves()
    for spec in methods:
        for suite in suites:
            row = rows.get((spec.label, suite))
            if row is not None and spec.error_rate is not None:
                curves.add(spec.base_label, suite, spec.error_rate, row["success_rate"], row["stderr"])
    return curves


def _seed_marks(curves: Curves) -> dict[tuple[str, str], float]:
    """LLM-MCTS Table 1 (GPT-3.5) per curve and suite; a variant (``llm_mcts[...]``) takes its method's."""

    marks = seed_levels("household")
    return {(method, suite): marks[(method.split("[")[0], suite)] for method, per_suite in curves.points.items()
            for suite in per_suite if (method.split("[")[0], suite) in marks}


def format_error_rate_table(report: BenchReport, methods: Sequence[MethodSpec], suites: Sequence[str]) -> str:
    """Success (%) per method and suite at each error rate of the served model, and the seed's figure."""

    curves = _by_rate(report, methods, suites)
    rates = list(dict.fromkeys(m.error_rate for m in methods if m.error_rate is not None))
    title = (f"Success (%) against the served model's share of wrong answers (llm-planner serve --error-rate P, error "
             f"seed {report.config.get('error_seed', 0)}); seed: LLM-MCTS Table 1 with GPT-3.5, whose error rate is "
             "unknown")
    return table(curves, rates, _seed_marks(curves), title, "seed (GPT-3.5)")


def plot_error_rates(report: BenchReport, methods: Sequence[MethodSpec], suites: Sequence[str], path: str) -> Path:
    """One PNG: per suite, success (%) against the error rate, one line per method (stderr bars), the
    seed's figure of the method as a dotted level in its colour."""

    curves = _by_rate(report, methods, suites)
    cfg = report.config
    return plot(curves, suites, _seed_marks(curves), path,
                "household: success against the served model's error rate (llm-planner serve --error-rate)",
                f"{cfg.get('seeds')} seeds x {cfg.get('episodes_per_seed')} episodes per point, "
                f"error seed {cfg.get('error_seed', 0)}, wall {cfg.get('wall_s')} s; dotted: the seed's GPT-3.5 figure "
                "(its error rate unknown)")
