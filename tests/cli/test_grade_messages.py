"""``tutor grade``'s refusals say who speaks and what a line must be."""

from __future__ import annotations

import io
import json

import pytest

from bot.cli import main
from bot.cli.grade import grade_lines
from bot.content.loader import Bank
from bot.grading import Grader


def test_an_unknown_item_is_named_by_tutor_grade(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "NOPE", "--text", "because"]) == 2
    assert capsys.readouterr().err.startswith("tutor grade: unknown item id 'NOPE'")


@pytest.mark.parametrize(("line", "kind"), [("[1, 2]", "an array"), ('"TF3"', "a string")])
def test_a_jsonl_line_that_is_not_an_object_says_each_line_must_be_one(
    bank: Bank, line: str, kind: str
) -> None:
    out = io.StringIO()
    assert grade_lines(Grader(bank), io.StringIO(line + "\n"), out) == 1
    row = json.loads(out.getvalue())
    assert (row["error"], row["line"]) == ("invalid_request", 1)
    assert row["message"] == f"each line must be a JSON object, not {kind}"


@pytest.mark.parametrize("text", ["", "   ", "```python"])
def test_tutor_grade_refuses_an_empty_text_like_the_other_front_ends(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["grade", "TF3", "--verdict", "false", "--text", text]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "tutor grade: an empty answer cannot be graded: say why, in a sentence\n"
    )
    assert captured.out == ""


def test_a_jsonl_line_with_only_a_code_fence_is_an_empty_answer(bank: Bank) -> None:
    out = io.StringIO()
    line = json.dumps({"item_id": "TF3", "verdict": False, "text": "```python"})
    assert grade_lines(Grader(bank), io.StringIO(line + "\n"), out) == 1
    assert json.loads(out.getvalue())["error"] == "empty_answer"


def test_a_jsonl_item_id_in_lower_case_is_graded_under_its_canonical_id(bank: Bank) -> None:
    out = io.StringIO()
    line = json.dumps({"item_id": "se1", "text": "the grads double"})
    assert grade_lines(Grader(bank), io.StringIO(line + "\n"), out) == 0
    assert json.loads(out.getvalue())["item_id"] == "SE1"


def test_tutor_grade_takes_an_item_id_in_any_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "tf3", "--verdict", "false", "--text", "grads pile up"]) == 0
    assert "label=" in capsys.readouterr().out


def test_a_jsonl_line_that_is_not_utf8_says_so(bank: Bank) -> None:
    out = io.StringIO()
    assert grade_lines(Grader(bank), [b"\xff\xfe{}\n"], out) == 1
    row = json.loads(out.getvalue())
    assert (row["error"], row["line"]) == ("invalid_json", 1)
    assert row["message"].startswith("not UTF-8 (byte 0xff at position 0)")


def test_a_bad_byte_inside_a_jsonl_string_is_an_error_and_the_other_lines_are_graded(
    bank: Bank,
) -> None:
    """The README's contract: a line that is not UTF-8 is an error object naming the line
    and the byte, even when the bad byte sits inside a JSON string (it was graded as
    U+FFFD, new-user test #1)."""
    good = b'{"item_id": "TF3", "verdict": false, "text": "grads pile up"}\n'
    bad = b'{"item_id": "TF3", "verdict": false, "text": "caf\xe9: grads pile up"}\n'
    out = io.StringIO()
    assert grade_lines(Grader(bank), io.BytesIO(good + bad + good), out) == 1
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [row["line"] for row in rows] == [1, 2, 3]
    assert (rows[1]["error"], rows[1]["message"]) == (
        "invalid_json",
        "not UTF-8 (byte 0xe9 at position 49): a JSON line is UTF-8 text",
    )
    assert ["error" in row for row in rows] == [False, True, False]


def test_tutor_grade_jsonl_refuses_a_line_not_utf8_from_stdin_with_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b'{"item_id":"TF3","text":"\xff\xfe"}\n'))
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["grade", "--jsonl"]) == 1
    row = json.loads(capsys.readouterr().out)
    assert (row["line"], row["error"]) == (1, "invalid_json")
    assert row["message"].startswith("not UTF-8 (byte 0xff at position 25)")


def test_a_verdict_for_an_item_without_one_is_said_to_be_ignored(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["grade", "SE1", "--verdict", "true", "--text", "the grads double"]) == 0
    err = capsys.readouterr().err
    assert "--verdict true ignored: SE1 is a spot-the-error item" in err


@pytest.mark.parametrize(
    ("item", "kind"),
    [
        ("EC6", "an edge-case"),
        ("ec6", "an edge-case"),
        ("WHY1", "a why"),
        ("SE1", "a spot-the-error"),
    ],
)
def test_the_ignored_verdict_note_uses_the_right_article(
    item: str, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """fresh22 #14: ``tutor grade EC6 --text 8 --verdict true`` said "EC6 is a edge-case
    item"."""
    assert main(["grade", item, "--text", "8", "--verdict", "true"]) == 0
    err = capsys.readouterr().err
    assert f"--verdict true ignored: {item.upper()} is {kind} item, and only true/false" in err
    assert " a edge" not in err


def test_every_kind_has_its_article() -> None:
    from bot.content.models import Kind

    assert [kind.with_article for kind in Kind] == [
        "a true/false",
        "a spot-the-error",
        "a why",
        "an edge-case",
    ]


@pytest.mark.parametrize("verdict", [1, 0, "true", "yes", "false"])
def test_a_jsonl_verdict_that_is_not_true_false_or_null_is_refused_naming_it(
    bank: Bank, verdict: object
) -> None:
    out = io.StringIO()
    line = json.dumps({"item_id": "TF3", "verdict": verdict, "text": "grads pile up"})
    assert grade_lines(Grader(bank), io.StringIO(line + "\n"), out) == 1
    row = json.loads(out.getvalue())
    assert (row["error"], row["message"]) == (
        "invalid_request",
        "verdict: Input should be a valid boolean",
    )


def test_a_jsonl_object_with_a_key_twice_is_an_error_naming_the_key(bank: Bank) -> None:
    out = io.StringIO()
    line = '{"item_id": "TF3", "item_id": "SE1", "text": "it accumulates"}\n'
    assert grade_lines(Grader(bank), io.StringIO(line), out) == 1
    row = json.loads(out.getvalue())
    assert (row["error"], row["line"]) == ("invalid_json", 1)
    assert row["message"] == 'the key "item_id" appears twice in one object: give each key once'


def test_an_answer_phrased_as_a_question_is_told_so_not_blamed_for_words_it_lacks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["grade", "SE1", "--text", "doesn't it accumulate?"]) == 0
    out = capsys.readouterr().out
    assert "You hedged or asked instead of stating it" in out
    assert "'not sure'" not in out


def test_the_help_of_tutor_grade_says_what_the_label_line_is(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["grade", "--help"])
    assert "label=correct|partial|incorrect" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    "argv",
    [["grade", "TF3", "--text", "because"], ["content", "check"], ["content", "test"]],
)
def test_outside_the_checkout_the_missing_bank_is_named_with_the_fix(
    argv: list[str],
    tmp_path: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A new user ran tutor grade from another directory and read only "content: cannot
    read: No such file or directory"."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TUTOR_CONTENT_DIR", raising=False)
    assert main(argv) == 1
    err = capsys.readouterr().err
    # after the command's name, like its other errors (fresh18 #3)
    prog = "tutor " + " ".join(argv[: 1 if argv[0] == "grade" else 2])
    assert err.startswith(f"{prog}: the question bank content ({tmp_path}/content) does not exist")
    assert "TUTOR_CONTENT_DIR" in err


def test_a_bank_that_cannot_load_is_reported_after_tutor_grade(
    tmp_path: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """fresh18 #3: an empty content directory printed its line without ``tutor grade:``."""
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(tmp_path))
    assert main(["grade", "TF3", "--text", "because"]) == 1
    err = capsys.readouterr().err
    assert err == f"tutor grade: {tmp_path}: no pack files (*.yaml) found\n"


def test_the_jsonl_help_says_verdict_is_a_json_boolean(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["grade", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "verdict is a JSON boolean, true or false, or null" in help_text


@pytest.mark.parametrize(
    ("extra", "dropped"),
    [(["TF3"], "ITEM"), (["--text", "x"], "--text"), (["TF3", "--text", "x"], "ITEM and --text")],
)
def test_jsonl_with_an_item_or_a_text_names_only_what_was_given(
    extra: list[str], dropped: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["grade", "--jsonl", *extra]) == 2
    assert capsys.readouterr().err == (
        f"tutor grade: --jsonl reads every answer from stdin; drop {dropped}\n"
    )


def test_tutor_grade_jsonl_names_an_unknown_key_instead_of_ignoring_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A misspelt ``verdict`` was graded as no verdict, with no word (fresh24 finding 5)."""
    lines = [
        '{"item_id":"TF3","verdit":true,"text":"it adds up"}',
        '{"item_id":"TF3","verdict":false,"text":"grads add up","label":"correct",'
        '"style":"terse","opposite_claim":false}',
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["grade", "--jsonl"]) == 1
    typo, marked = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert (typo["line"], typo["item_id"], typo["error"]) == (1, "TF3", "invalid_request")
    assert typo["message"].startswith("unknown key 'verdit': a line holds item_id, verdict, text")
    assert "error" not in marked
    assert marked["verdict"] is False
