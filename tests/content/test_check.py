"""`tutor content check`: the shipped bank passes; every broken fixture fails precisely."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.cli import main
from bot.content.loader import ContentErrors, load_pack, parse_pack
from bot.content.models import Kind
from tests.conftest import CONTENT

HERE = Path(__file__).parent
BROKEN = sorted((HERE / "broken").glob("*.yaml"))


def expected_message(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), f"{path} lacks its '# expect:' header"
    return first.removeprefix("# expect: ")


def test_shipped_bank_passes_check(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "check", str(CONTENT)]) == 0
    assert capsys.readouterr().out.startswith("ok: ")


def test_valid_fixture_passes() -> None:
    pack = load_pack(HERE / "valid.yaml")
    assert [item.id for item in pack.items] == ["TF1"]


def test_there_are_at_least_ten_kinds_of_broken_fixture() -> None:
    assert len(BROKEN) >= 10


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_broken_fixture_fails_with_its_message(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["content", "check", str(path)])
    err = capsys.readouterr().err
    assert status == 1
    assert expected_message(path) in err
    # Every problem line names the file and a line number.
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:")
    assert first.split(":")[1].isdigit()


def test_yaml_words_never_become_booleans_in_text_fields() -> None:
    text = (HERE / "valid.yaml").read_text(encoding="utf-8")
    text = text.replace("prompt: A fixture prompt.", "prompt: no")
    text = text.replace("hint: A fixture hint.", "hint: on")
    text = text.replace("tags: [fixture]", "tags: [off, yes]")
    text = text.replace('text: "False, they add up."', "text: 1e3")
    item = parse_pack(text, "mem.yaml").items[0]
    assert item.prompt == "no"
    assert item.hint == "on"
    assert item.tags == ["off", "yes"]
    assert item.samples[1].text == "1e3"


def test_numbers_and_booleans_still_convert_where_the_schema_wants_them() -> None:
    item = load_pack(HERE / "valid.yaml").items[0]
    assert item.difficulty == 1
    assert item.answer.verdict is False
    assert item.rubric.concepts[0].weight == 2.0
    assert item.kind is Kind.TRUE_FALSE


def test_every_problem_is_reported_not_only_the_first() -> None:
    text = (HERE / "valid.yaml").read_text(encoding="utf-8")
    text = text.replace("difficulty: 1", "difficulty: 7").replace("weight: 2", "weight: -1")
    with pytest.raises(ContentErrors) as info:
        parse_pack(text, "mem.yaml")
    wheres = {error.where for error in info.value.errors}
    assert wheres == {"TF1.difficulty", "TF1.rubric.concepts[0].weight"}


def test_ids_repeated_across_packs_are_refused(tmp_path: Path) -> None:
    for name in ("a.yaml", "b.yaml"):
        (tmp_path / name).write_text((HERE / "valid.yaml").read_text(encoding="utf-8"))
    assert main(["content", "check", str(tmp_path)]) == 1


def test_an_empty_directory_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "check", str(tmp_path)]) == 1
    assert "no pack files" in capsys.readouterr().err


def test_non_utf8_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("pack: caf\xe9\n".encode("latin-1"))
    assert main(["content", "check", str(path)]) == 1
    # the byte and where, as .env and tutor grade --jsonl say it (was "(byte 9)": fresh18 #3)
    assert f"{path}: not UTF-8 (byte 0xe9 at position 9)" in capsys.readouterr().err


def test_a_path_given_that_does_not_exist_is_named_as_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """fresh18 #3: a typo on the command line was told to run from the checkout or set
    TUTOR_CONTENT_DIR, neither of which has anything to do with it."""
    missing = tmp_path / "nonexistent.yaml"
    assert main(["content", "check", str(missing)]) == 1
    err = capsys.readouterr().err
    assert err == f"tutor content check: the path given, {missing}, does not exist\n"


@pytest.mark.parametrize(
    ("text", "position"),
    [("items: &a [*a]\n", "1:12"), ("a: &a [*a]\n", "1:8"), ("a: &m {b: [*m]}\n", "1:12")],
    ids=["items", "top-level", "in-a-mapping"],
)
def test_a_recursive_alias_is_a_positioned_error_not_a_crash(text: str, position: str) -> None:
    with pytest.raises(ContentErrors) as refused:
        parse_pack(text, "loop.yaml")
    assert str(refused.value) == (
        f"loop.yaml:{position}: invalid YAML: recursive alias *{'m' if '&m' in text else 'a'}: "
        "it refers to a node it is inside"
    )


def test_absurd_nesting_is_a_positioned_error_not_a_recursion_error() -> None:
    text = "items: " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(ContentErrors) as refused:
        parse_pack(text, "deep.yaml")
    assert str(refused.value) == "deep.yaml:1:47: invalid YAML: nested deeper than 40 levels"


def test_an_alias_bomb_is_refused_before_it_expands() -> None:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    lines.append("items: *i")
    with pytest.raises(ContentErrors) as refused:
        parse_pack("\n".join(lines) + "\n", "lol.yaml")
    assert str(refused.value).startswith("lol.yaml:6:4: invalid YAML: expands to more than 250,000")


def test_an_alias_used_again_outside_its_anchor_still_loads() -> None:
    text = (HERE / "valid.yaml").read_text(encoding="utf-8")
    text = text.replace("explanation: The fixture explanation.", "explanation: &said Said once.")
    text = text.replace("hint: A fixture hint.", "hint: *said")
    item = parse_pack(text, "mem.yaml").items[0]
    assert (item.explanation, item.hint) == ("Said once.", "Said once.")


def test_check_with_no_path_checks_the_configured_content_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "packs"
    broken.mkdir()
    (broken / "bad.yaml").write_bytes((HERE / "broken" / "missing_field.yaml").read_bytes())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(broken))
    assert main(["content", "check"]) == 1
    assert capsys.readouterr().err.startswith(f"{broken / 'bad.yaml'}:")


def test_grade_with_no_content_reads_the_configured_content_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    packs = tmp_path / "packs"
    packs.mkdir()
    text = (HERE / "valid.yaml").read_text(encoding="utf-8").replace("id: TF1", "id: TF77")
    (packs / "only.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(packs))
    assert main(["grade", "TF77", "--verdict", "false", "--text", "they add up"]) == 0
    assert "score" in capsys.readouterr().out


def test_schema_is_written_into_the_configured_content_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "packs").mkdir()
    monkeypatch.setenv("TUTOR_CONTENT_DIR", str(tmp_path / "packs"))
    assert main(["content", "schema"]) == 0
    assert (tmp_path / "packs" / "schema.json").is_file()
    assert not (tmp_path / "content").exists()


def test_an_id_repeated_in_another_file_is_reported_at_both_places(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (HERE / "valid.yaml").read_text(encoding="utf-8")
    (tmp_path / "a.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(text.replace("pack: fixture", "pack: other"), "utf-8")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if row.strip() == "- id: TF1")
    assert main(["content", "check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    # the same words as a duplicate within one file (new-user test #5)
    assert (
        f"{tmp_path / 'b.yaml'}:{line}:5: TF1.id: duplicate item id 'TF1' "
        f"(first at {tmp_path / 'a.yaml'}:{line}:5)\n"
    ) in err


def test_an_id_repeated_in_one_file_names_the_first_by_file_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (HERE / "valid.yaml").read_text(encoding="utf-8")
    item = text[text.index("  - id: TF1") :]  # the fixture's one item ends the file
    pack = tmp_path / "d.yaml"
    pack.write_text(text + item, encoding="utf-8")
    rows = (text + item).splitlines()
    first, second = (n for n, row in enumerate(rows, 1) if row == "  - id: TF1")
    assert main(["content", "check", str(pack)]) == 1
    assert (
        f"{pack}:{second}:5: TF1.id: duplicate item id 'TF1' (first at {pack}:{first}:5)\n"
    ) in capsys.readouterr().err


def test_content_item_filters_take_ids_in_any_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "test", "--item", "tf3", str(CONTENT)]) != 2  # 2: unknown id
    captured = capsys.readouterr()
    assert "unknown item id" not in captured.err
    assert "TF3" in captured.out


def _unclosed_quote_pack() -> str:
    """valid.yaml with ``title: "unclosed`` under TF1's kind (line 7); the next ``"``, two
    lines down, closes it (fresh15: a comment's quote 36 lines down was the only line named)."""
    lines = (HERE / "valid.yaml").read_text(encoding="utf-8").splitlines()
    lines.insert(6, '    title: "unclosed')
    return "\n".join(lines) + "\n"


def _only_error(text: str) -> str:
    with pytest.raises(ContentErrors) as refused:
        parse_pack(text, "mem.yaml")
    [error] = refused.value.errors
    return str(error)


def test_an_unclosed_quote_is_reported_where_it_was_opened() -> None:
    assert "the string opened at line 7, column 12 runs on to line" in _only_error(
        _unclosed_quote_pack()
    )


def test_an_unclosed_quote_names_the_item_whose_block_holds_it() -> None:
    assert ": TF1: invalid YAML: " in _only_error(_unclosed_quote_pack())


def test_an_unclosed_quote_keeps_the_line_where_the_parser_stopped() -> None:
    text = _unclosed_quote_pack()
    stopped = next(n for n, line in enumerate(text.splitlines()[7:], 8) if '"' in line)
    assert _only_error(text).startswith(f"mem.yaml:{stopped}:")


def test_a_quote_never_closed_names_its_opening_line() -> None:
    text = (HERE / "valid.yaml").read_text(encoding="utf-8")
    text = text.replace("hint: A fixture hint.", "hint: 'A fixture hint.")
    text = text.replace("'", "") + "    notes: 'no end\n"
    last = len(text.splitlines())
    assert f"the string opened at line {last}, column 12 is never closed" in _only_error(text)


def test_an_unclosed_flow_sequence_names_where_it_began_and_its_item() -> None:
    error = _only_error((HERE / "broken" / "invalid_yaml.yaml").read_text(encoding="utf-8"))
    assert error.startswith("mem.yaml:12:15: TF1: invalid YAML: expected ',' or ']'")
    assert error.endswith("reading a flow sequence that began at line 11, column 11")


def test_plain_check_counts_dead_alternatives_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """fresh24 #6: plain ``check`` said "ok" while 24 alternatives could never match; the
    count is in its ``ok:`` line and one stderr line, the list under ``--verbose``. Round 22
    fixed every dead alternative in the shipped packs, so one is put back in a copy (a bare
    ``0`` is a number token, never a word)."""
    core = (CONTENT / "autograd-core.yaml").read_text(encoding="utf-8")
    assert "zeros|`0`" in core
    (tmp_path / "autograd-core.yaml").write_text(
        core.replace("zeros|`0`", "zeros|0", 1), encoding="utf-8"
    )
    assert main(["content", "check", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    [ok] = captured.out.splitlines()
    ok_line = r"ok: \d+ items in \d+ pack\(s\) \(.*\); \d+ pattern warning\(s\) on stderr"
    assert re.fullmatch(ok_line, ok)
    dead = re.search(
        r"^warning: (\d+) pattern\(s\) hold an alternative that can never match "
        r"\(--verbose lists them\)$",
        captured.err,
        re.MULTILINE,
    )
    assert dead is not None
    assert int(dead.group(1)) == 1
    assert "in pattern" not in captured.err  # the alternatives themselves: --verbose only


def test_the_shipped_packs_have_no_dead_alternatives(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["content", "check", str(CONTENT)]) == 0
    captured = capsys.readouterr()
    assert re.fullmatch(r"ok: 50 items in 2 pack\(s\) \([^)]*\)", captured.out.strip())
    assert "never match" not in captured.err
