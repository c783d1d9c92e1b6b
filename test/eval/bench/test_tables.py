"""The benchmarks' tables (llm_planner_eval/bench/report.py): aligned text for a terminal, and under
``table_style("markdown")`` (the bench commands' ``--markdown``) the Markdown tables of the
documentation's results pages."""
from __future__ import annotations

import pytest

from llm_planner_eval.bench.report import format_table, markdown_table, table_style

HEADER = ["method", "P1", "note"]
ROWS = [["stalm", "1.00 (1.6)", "a | b"], ["uct_hcount", "-", "time-out"]]


def test_a_markdown_table_has_its_title_above_numbers_right_and_pipes_escaped() -> None:
    assert markdown_table(HEADER, ROWS, title="\nSuccess rate") == (
        "\nSuccess rate\n"
        "\n"
        "| method | P1 | note |\n"
        "| --- | ---: | --- |\n"
        "| stalm | 1.00 (1.6) | a \\| b |\n"
        "| uct_hcount | - | time-out |\n")


def test_a_short_row_is_padded_and_a_table_without_numbers_is_left_aligned() -> None:
    assert markdown_table(["a", "b"], [["x"]]) == "| a | b |\n| --- | --- |\n| x |  |\n"
    assert markdown_table(["a"], [["-"], ["-"]]).splitlines()[1] == "| --- |"


def test_format_table_writes_the_style_of_its_block_and_text_outside() -> None:
    text = format_table(HEADER, ROWS, title="t")
    assert text.splitlines()[:3] == ["t", "method      P1          note    ", "----------  ----------  --------"]
    with table_style("markdown"):
        assert format_table(HEADER, ROWS, title="t") == markdown_table(HEADER, ROWS, title="t")
    assert format_table(HEADER, ROWS, title="t") == text
    with pytest.raises(ValueError, match="text or markdown"), table_style("html"):
        pass


def test_a_wide_table_is_split_into_tables_that_each_keep_the_first_column() -> None:
    header = ["method", "a", "b", "c", "d", "e"]
    text = markdown_table(header, [["llm_mcts", 1, 2, 3, 4, 5]], title="Cost", max_columns=3)
    assert text == ("Cost\n\n"
                    "| method | a | b |\n| --- | ---: | ---: |\n| llm_mcts | 1 | 2 |\n\n"
                    "| method | c | d |\n| --- | ---: | ---: |\n| llm_mcts | 3 | 4 |\n\n"
                    "| method | e |\n| --- | ---: |\n| llm_mcts | 5 |\n")
    two_keys = markdown_table(["latency", "method", "x", "y"], [["0.5 s", "uct", 1, 2]], keys=2, max_columns=3)
    assert two_keys.split("\n\n")[1] == "| latency | method | y |\n| ---: | --- | ---: |\n| 0.5 s | uct | 2 |\n"


def test_a_column_of_figures_with_units_is_right_and_one_of_sentences_left() -> None:
    rows = [["a", "0.5 s", "6 sent, 0 given up"], ["b", "1.00 (3/3 due)", "-"]]
    text = markdown_table(["m", "wait", "questions"], rows)
    assert text.splitlines()[1] == "| --- | ---: | --- |"
