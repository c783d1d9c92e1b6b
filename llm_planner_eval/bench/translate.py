"""``llm-planner bench translate``: goal translation of directives as people say them (LLM-MCTS seed
000, §2.2 "Goal"; the grounding and validation of ``llm_planner.translation.translate``), on a hand-written
evaluation set with gold goals (``config/translate_eval.yaml``: several phrasings per intent, both
apartments, and directives that must be refused: rooms as destinations, unknown objects, counts the
apartment does not have, vague or negated requests, other languages).

Per directive the translated goal is compared with the gold goal as a set of (REL, type,
destination, count) items. Printed per apartment and overall:

* exact-goal accuracy: directives with a gold goal translated to exactly that goal;
* wrong-goal rate: directives whose translation was accepted but differs from the gold goal
  (including a goal accepted where a refusal was due) -- a silent error, the figure to keep near 0;
* refusal rate: directives refused with a message (due or not), and how many refusals were due;
* with a model: how many goals the check against the directive refused (``reading/goal_support.py``:
  the offline parser read the directive otherwise, or the directive's words do not support an atom),
  and how many of them were the gold goal all the same (a right answer refused) -- the rest are the
  wrong goals the check kept from running;
* with a model backend: how many goals the directive reader read (its reading is the goal, the model
  is asked only for the rest), and with ``--llm-set translate.ask_model=always`` on how many of them
  the model, asked too, disagreed (logged and counted, never refused);
* seconds per directive.

Splits: dev (used while writing the offline reader), test (held out), quantities (counts,
negations and self-corrections: read, asked or refused, never a wrong count), states (how things
are: open, closed, on, off, alone and mixed with placements, with negations and things that cannot
take the state; a gold state item is written "closed fridge").

Every wrong goal is listed, and with ``--show refused`` every refusal with its message.

With ``--answers`` a scripted person answers every question the reader asks instead of
refusing (which table, how many, where in the room): it picks the option that leads to the goal the
entry's ``asked`` names (the gold option), says it by name ("coffee table", "two"), and the answer
is read with the same reader; the figures then count the refusals settled with one reply and the
wrong goals after the answers (wrong-goal rate with answers: every accepted goal, first or after an
answer, that differs from gold).

    llm-planner bench translate                       # offline backend
    llm-planner bench translate --serve-style chatty  # the openai backend against llm-planner serve
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from llm_planner.clarification import NeedsAnswer
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import STATE_RELATIONS, Household
from llm_planner.errors import ConfigError, LlmPlannerError
from llm_planner.llm.config import load_llm_config, parse_dotted
from llm_planner.llm.factory import make_backend
from llm_planner.paths import config_dir
from llm_planner.reading import UnsupportedGoal
from llm_planner.translation import read_answer
from llm_planner.translation.translate import translate_directive
from llm_planner_eval.bench.report import BenchReport, format_table
from llm_planner_eval.bench.serving import add_serve_arguments, serve_for_bench

HOMES = {"seen": "apartment_seen", "unseen": "apartment_unseen"}
#: dev: used while writing the offline reader; test: held out; quantities: counts, negations and
#: self-corrections, written for the reader's one reading of them.
#: states: directives about how things are (open, closed, on, off), alone and mixed with placements,
#: with negations and things that cannot take the state.
SPLITS = ("dev", "test", "quantities", "states")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("translate", help="goal translation accuracy on directives as people say them",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--set", dest="eval_set", default=None, metavar="FILE",
                   help="evaluation set YAML (default config/translate_eval.yaml)")
    p.add_argument("--home", default=None, help="apartments to evaluate: seen, unseen or seen,unseen (default: every "
                   "apartment of the set; a set may name its own under 'homes:', scene files beside "
                   "the set or under config/)")
    p.add_argument("--backend", default=None, help="LLM backend: offline (default) or openai")
    p.add_argument("--llm-set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a key of config/llm.yaml (repeatable)")
    p.add_argument("--show", choices=("wrong", "refused", "all"), default="wrong",
                   help="which directives to list after the table (default: wrong goals)")
    p.add_argument("--json", default=None, metavar="FILE",
                   help="write rows and per-directive records (DESIGN.md format); - prints them")
    p.add_argument("--answers", action="store_true",
                   help="answer each question the reader asks with the gold option (entries' 'asked' goal), "
                        "by name, and count the refusals one reply settles")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_serve_arguments(p)
    p.set_defaults(func=run)


@dataclass(frozen=True)
class Case:
    scene: str                   # seen | unseen
    directive: str
    gold: frozenset | None       # {(rel, type, destination, count)}; None: a refusal is due
    refuse: str = ""             # why a refusal is due
    split: str = "dev"           # one of SPLITS
    asked: frozenset | None = None  # with refuse: the goal meant, reached with one answer to the question


def load_cases(path: str | Path | None = None) -> list[Case]:
    """The evaluation set; a malformed entry is an error naming it."""

    path = Path(path) if path else config_dir() / "translate_eval.yaml"
    try:
        data = yaml.safe_load(path.read_text())
        entries = data["directives"]
        for home, scene_file in (data.get("homes") or {}).items():  # a set written for another apartment:
            beside = path.parent / str(scene_file)  # its scene file beside the set, else under config/
            HOMES[str(home)] = str(beside if beside.is_file() else config_dir() / str(scene_file))
    except (OSError, KeyError, TypeError, AttributeError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not a translation evaluation set ({exc}); expected a 'directives' list") from None
    cases = []
    for i, entry in enumerate(entries):
        try:
            scene, directive = str(entry["scene"]), str(entry["directive"])
            if scene not in HOMES:
                raise ValueError(f"scene must be one of {', '.join(HOMES)}")
            if ("goal" in entry) == ("refuse" in entry):
                raise ValueError("give either goal or refuse")
            gold = frozenset(_item(part) for part in str(entry["goal"]).split(";")) if "goal" in entry else None
            split = str(entry.get("split", "dev"))
            if split not in SPLITS:
                raise ValueError(f"split must be one of {', '.join(SPLITS)}")
            asked = frozenset(_item(part) for part in str(entry["asked"]).split(";")) if "asked" in entry else None
            if asked is not None and gold is not None:
                raise ValueError("'asked' goes with refuse (the goal one answer to the question leads to)")
            cases.append(Case(scene, directive, gold, str(entry.get("refuse", "")), split, asked))
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"{path}: directive {i + 1} {entry!r}: {exc}") from None
    return cases


def _item(text: str) -> tuple[str, str, str, int]:
    """A gold item: "inside apple fridge 1", or a state "closed fridge" (no destination, count 1)."""
    words = text.split()
    if len(words) == 2:
        if words[0] not in STATE_RELATIONS:
            raise ValueError(f"state '{words[0]}' is not one of {', '.join(STATE_RELATIONS)}")
        return words[0], words[1], "", 1
    rel, obj, dest, count = words
    if rel not in ("inside", "on"):
        raise ValueError(f"relation '{rel}' is not inside or on")
    return rel, obj, dest, int(count)


def evaluate(case: Case, household: Any, backend: Any, answers: bool = False) -> dict[str, Any]:
    """One directive: the translated goal (or the refusal message) and how it compares to gold;
    with ``answers`` a question is answered with the gold option (:func:`answer_question`)."""

    started = time.perf_counter()
    record: dict[str, Any] = {"scene": case.scene, "split": case.split, "directive": case.directive,
                              "gold": sorted(case.gold) if case.gold else None, "refuse_due": case.refuse}
    try:
        result = translate_directive(case.directive, household, backend)
        goal = frozenset((g.rel, g.obj_type, g.destination, g.count) for g in result.goal)
        record.update(goal=sorted(goal), refused=False, message=result.message, read_by_reader=result.read_by_reader,
                      disagreement=result.disagreement)
        record["outcome"] = "exact" if goal == case.gold else "wrong"
    except LlmPlannerError as exc:
        record.update(goal=None, refused=True, message=str(exc))
        record["outcome"] = "refused_due" if case.gold is None else "missed"
        if isinstance(exc, NeedsAnswer):
            record.update(question=exc.question.text, options=list(exc.question.labels))
            if answers:
                record.update(answer_question(case, exc.question, household, backend))
        if isinstance(exc, UnsupportedGoal):  # the model's goal, refused by the check against the directive
            model_goal = frozenset((g.rel, g.obj_type, g.destination, g.count) for g in exc.goal)
            record.update(unsupported=exc.kind, model_goal=sorted(model_goal),
                          model_goal_was_gold=model_goal == case.gold)
    record["seconds"] = time.perf_counter() - started
    return record


def answer_question(case: Case, question: Any, household: Any, backend: Any) -> dict[str, Any]:
    """The scripted person of ``--answers``: the option whose directive reads to the gold goal
    (``asked``, or the gold goal of an answerable entry) said by name, read with the reader, and
    the goal it leads to: answer_outcome settled (the gold goal), wrong (another goal), unread (the
    reader did not take the answer), no_gold_option (no option leads there), or no_gold."""

    gold = case.asked or case.gold
    if gold is None:
        return {"answer_outcome": "no_gold"}

    def goal_of(directive: str) -> frozenset | None:
        try:
            result = translate_directive(directive, household, backend)
        except LlmPlannerError:
            return None
        return frozenset((g.rel, g.obj_type, g.destination, g.count) for g in result.goal)

    target = next((o for o in question.options if goal_of(o.directive) == gold), None)
    if target is None:
        return {"answer_outcome": "no_gold_option"}
    said = target.label.split(" (")[0]
    option = read_answer(household, backend, question, said)
    if option is None:
        return {"answer": said, "answer_outcome": "unread"}
    goal = goal_of(option.directive)
    return {"answer": said, "answered_goal": sorted(goal) if goal else None,
            "answer_outcome": "settled" if goal == gold else "wrong"}


def summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of a set of records (see the module docstring)."""
    n = len(records)
    answerable = [r for r in records if r["gold"] is not None]
    due = [r for r in records if r["gold"] is None]
    exact = sum(r["outcome"] == "exact" for r in records)
    wrong = sum(r["outcome"] == "wrong" for r in records)
    refused = sum(r["refused"] for r in records)
    return {"directives": n, "answerable": len(answerable), "refusals_due": len(due),
            "exact_goal_accuracy": exact / len(answerable) if answerable else float("nan"),
            "wrong_goal_rate": wrong / n if n else float("nan"), "wrong_goals": wrong,
            "refusal_rate": refused / n if n else float("nan"), "refusals": refused,
            "refusals_correct": sum(r["outcome"] == "refused_due" for r in records),
            # the check of a model's goal against the directive (reading/goal_support.py)
            "unsupported": sum(bool(r.get("unsupported")) for r in records),
            "unsupported_by_parser": sum(r.get("unsupported") == "parser" for r in records),
            "unsupported_by_words": sum(r.get("unsupported") == "lexical" for r in records),
            "unsupported_right_goal": sum(bool(r.get("model_goal_was_gold")) for r in records),
            "seconds_per_directive": sum(r["seconds"] for r in records) / n if n else float("nan"),
            # a model backend: goals the directive reader read (the model not asked, or overruled)
            "read_by_reader": sum(bool(r.get("read_by_reader")) for r in records),
            "disagreements": sum(bool(r.get("disagreement")) for r in records),
            # questions instead of refusals and, with --answers, what one reply settled
            "asked": sum(bool(r.get("question")) for r in records),
            "settled_by_answer": sum(r.get("answer_outcome") == "settled" for r in records),
            "wrong_after_answer": sum(r.get("answer_outcome") == "wrong" for r in records),
            "wrong_goal_rate_with_answers": (wrong + sum(r.get("answer_outcome") == "wrong" for r in records)) / n
            if n else float("nan")}


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    all_cases = load_cases(args.eval_set)
    homes = [h.strip() for h in (args.home or ",".join(dict.fromkeys(c.scene for c in all_cases))).split(",")
             if h.strip()]
    unknown = [h for h in homes if h not in HOMES]
    if unknown or not homes:
        raise ConfigError(f"unknown home(s) {', '.join(unknown) or '(none)'} (choose from {', '.join(HOMES)})")
    cases = [c for c in all_cases if c.scene in homes]
    llm_overrides = parse_dotted(args.llm_set)
    backend_name = args.backend or str(load_llm_config(overrides=llm_overrides).backend)
    llm_overrides, backend_name = serve_for_bench(args, llm_overrides, backend_name)
    backend = make_backend(llm_overrides, backend=backend_name)
    described = backend.describe()
    label = f"{described['backend']} (model {described['model']})"
    print(f"translation benchmark: {len(cases)} directives ({', '.join(homes)}); backend {label}", flush=True)
    if described.get("server"):  # what the model server honours (probed on first contact)
        print(f"  server: {described['server']}", flush=True)
    households = {h: Household(load_scene(HOMES[h])) for h in homes}
    records = [evaluate(c, households[c.scene], backend, args.answers)
               for c in tqdm(cases, desc="directives", unit="dir", file=sys.stderr, dynamic_ncols=True,
                            disable=args.no_progress)]

    eval_set = str(args.eval_set or "config/translate_eval.yaml")
    report = BenchReport("translate", described["backend"],
                         config={"backend": described, "homes": homes, "eval_set": eval_set})
    report.episodes = records
    rows = []

    def home_split(home: str, split: str) -> Callable[[dict[str, Any]], bool]:
        return lambda r: r["scene"] == home and r["split"] == split

    groups = [(f"{h} ({s})", home_split(h, s)) for s in SPLITS for h in homes]
    groups += [("all dev", lambda r: r["split"] == "dev"), ("all test (held out)", lambda r: r["split"] == "test"),
               ("all quantities", lambda r: r["split"] == "quantities"),
               ("all states", lambda r: r["split"] == "states"), ("all", lambda r: True)]
    for split, selects in groups:
        part = [r for r in records if selects(r)]
        if not part:
            continue
        s = summary(part)
        report.add_row("translate", split, s["directives"], s["exact_goal_accuracy"], 0.0, **s)
        rows.append([split, s["directives"], s["answerable"], f"{s['exact_goal_accuracy']:.3f}",
                     f"{s['wrong_goal_rate']:.3f} ({s['wrong_goals']})",
                     f"{s['refusal_rate']:.3f} ({s['refusals_correct']}/{s['refusals_due']} due)",
                     f"{s['read_by_reader']} ({s['disagreements']})", f"{s['seconds_per_directive']:.3f}"])
    print(format_table(["apartment (split)", "directives", "with a goal", "exact-goal accuracy", "wrong-goal rate",
                        "refusal rate", "reader's goal (model disagreed)", "s/directive"], rows,
                       title=f"Goal translation of directives as people say them; backend {label}"))
    total = summary(records)
    print(f"\nQuestions instead of refusals: {total['asked']} of {total['refusals']} refusals ask one "
          "(which one, how many, where)")
    if args.answers:
        unsettled = [r for r in records if r.get("question") and r.get("answer_outcome") != "settled"]
        print(f"With one answer each (--answers, the gold option said by name): {total['settled_by_answer']} "
              f"settled to the gold goal, {total['wrong_after_answer']} to another goal; wrong-goal rate with "
              f"answers {total['wrong_goal_rate_with_answers']:.3f}")
        for r in unsettled:
            print(f"    not settled ({r.get('answer_outcome')}): ({r['scene']}) {r['directive']!r} asked "
                  f"{r['question']!r}" + (f", answered {r['answer']!r}" if r.get("answer") else ""))
    if total["disagreements"]:
        print(f"\nThe model disagreed with the directive reader on {total['disagreements']} of the "
              f"{total['read_by_reader']} directives the reader read (translate.ask_model: always); the reader's goal "
              "stood each time")
    if total["unsupported"]:
        print(f"\nThe check against the directive refused {total['unsupported']} model goal(s) "
              f"({total['unsupported_by_parser']} differing from the offline parser's reading, "
              f"{total['unsupported_by_words']} with an atom the directive's words do not support): "
              f"{total['unsupported'] - total['unsupported_right_goal']} would have been wrong goals, "
              f"{total['unsupported_right_goal']} were the gold goal (refused in error).")
    show = {"wrong": ("wrong",), "refused": ("wrong", "missed", "refused_due"),
            "all": ("wrong", "missed", "refused_due", "exact")}[args.show]
    listed = [r for r in records if r["outcome"] in show]
    missed = [r for r in records if r["outcome"] == "missed"]
    if listed:
        print()
    for r in listed:
        print(f"[{r['outcome']}] ({r['scene']}) {r['directive']!r}\n    gold: {_goal_text(r['gold'])}; "
              f"got: {_goal_text(r['goal']) if r['goal'] is not None else 'refused: ' + r['message']}")
        if r.get("unsupported"):
            print(f"    the model's goal: {_goal_text(r['model_goal'])}")
    if args.show == "wrong" and missed:
        print(f"\n{len(missed)} answerable directive(s) refused (--show refused lists them with the message)")
    if args.json:
        if args.json == "-":
            print(json.dumps(report.to_dict(), default=str))
        else:
            print(f"\nwrote {report.write_json(args.json)}")
    return 0


def _goal_text(goal: Any) -> str:
    if goal is None:
        return "refuse"
    return "; ".join(f"({rel.upper()}, {obj})" if not dest else f"({rel.upper()}, {obj}, {dest}, {count})"
                     for rel, obj, dest, count in goal)
