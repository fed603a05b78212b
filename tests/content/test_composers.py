"""libyaml's composer and the pure-Python one read a pack alike: same data, same marks, and
the same ``file:line:col`` error for every bad file (the pure one words them all)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.content import loader
from bot.content.loader import MAX_YAML_DEPTH, ContentErrors, parse_pack

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
VALID = (HERE / "valid.yaml").read_text(encoding="utf-8")

needs_libyaml = pytest.mark.skipif(
    loader._libyaml_loader() is None, reason="libyaml (with its nesting limit) is not installed"
)


@pytest.fixture(params=["libyaml", "pure"])
def composer(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test once per composer; ``pure`` is what a machine without libyaml gets."""
    if request.param == "libyaml" and loader._libyaml_loader() is None:
        pytest.skip("libyaml (with its nesting limit) is not installed")
    if request.param == "pure":
        monkeypatch.setattr(loader, "_libyaml_loader", lambda: None)
    return str(request.param)


def _alias_bomb(levels: int) -> str:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for previous, name in itertools.pairwise("abcdefghijklmnop"[: levels + 1]):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    lines.append(f"items: *{'abcdefghijklmnop'[levels]}")
    return "\n".join(lines) + "\n"


def _unclosed_quote() -> str:
    lines = VALID.splitlines()
    lines.insert(6, '    title: "unclosed')
    return "\n".join(lines) + "\n"


def _block_nesting(depth: int) -> str:
    return "".join(" " * level + "-\n" for level in range(depth)) + " " * depth + "x\n"


BAD: dict[str, str] = {
    "recursive alias in items": "items: &a [*a]\n",
    "recursive alias at top level": "a: &a [*a]\n",
    "recursive alias in a mapping": "a: &m {b: [*m]}\n",
    "recursive alias, block style": "a: &a\n  - x\n  - *a\n",
    "flow nesting past libyaml's own limit": "items: " + "[" * 5000 + "]" * 5000 + "\n",
    "flow nesting of 45": "items: " + "[" * 45 + "]" * 45 + "\n",
    "flow nesting of exactly 41 with a scalar": "items: " + "[" * 39 + "x" + "]" * 39 + "\n",
    "block nesting of 45": _block_nesting(45),
    "block nesting past libyaml's own limit": _block_nesting(1200),
    "alias bomb": _alias_bomb(8),
    "undefined alias": "items: *nowhere\n",
    "duplicate anchor": "a: &x 1\nb: &x 2\n",
    "two documents": "---\na: 1\n---\nb: 2\n",
    "empty file": "",
    "only a comment": "# nothing\n",
    "a list, not a mapping": "- a\n- b\n",
    "unclosed quote": _unclosed_quote(),
    "quote never closed": VALID.replace("hint: A fixture hint.", "hint: 'A fixture hint.").replace(
        "'", ""
    )
    + "    notes: 'no end\n",
    "tab in indentation": VALID.replace("    kind: true_false", "\tkind: true_false"),
    "control character": VALID.replace("A fixture prompt.", "A fixture\x07 prompt."),
    "unknown key": VALID.replace("hint: A fixture hint.", "hnt: A fixture hint."),
    "YAML words in text fields": VALID.replace("hint: A fixture hint.", "hint: ~"),
    **{
        f"broken/{path.stem}": path.read_text(encoding="utf-8")
        for path in sorted((HERE / "broken").glob("*.yaml"))
    },
}


def _errors(text: str) -> list[str]:
    with pytest.raises(ContentErrors) as refused:
        parse_pack(text, "bad.yaml")
    return [str(error) for error in refused.value.errors]


@pytest.fixture(scope="module")
def pure_errors() -> dict[str, list[str]]:
    """Every bad text's errors from the pure composer (what the loader always reported)."""
    patch = pytest.MonkeyPatch()
    patch.setattr(loader, "_libyaml_loader", lambda: None)
    try:
        return {name: _errors(text) for name, text in BAD.items()}
    finally:
        patch.undo()


@pytest.mark.parametrize("name", list(BAD))
def test_every_bad_file_gets_the_same_errors_from_either_composer(
    name: str, composer: str, pure_errors: dict[str, list[str]]
) -> None:
    assert _errors(BAD[name]) == pure_errors[name]


def test_the_limit_errors_keep_their_wording_and_marks(composer: str) -> None:
    assert _errors(BAD["recursive alias in items"]) == [
        "bad.yaml:1:12: invalid YAML: recursive alias *a: it refers to a node it is inside"
    ]
    assert _errors(BAD["flow nesting past libyaml's own limit"]) == [
        f"bad.yaml:1:47: invalid YAML: nested deeper than {MAX_YAML_DEPTH} levels"
    ]
    assert _errors(BAD["flow nesting of exactly 41 with a scalar"]) == [
        f"bad.yaml:1:47: invalid YAML: nested deeper than {MAX_YAML_DEPTH} levels"
    ]
    assert _errors(BAD["alias bomb"])[0].startswith(
        "bad.yaml:6:4: invalid YAML: expands to more than 250,000"
    )


def _compose_c(text: str) -> Any:
    loader_class = loader._libyaml_loader()
    parser = loader_class(text)
    try:
        return parser.get_single_node()
    finally:
        parser.dispose()


def _problem(error: yaml.MarkedYAMLError) -> tuple[str | None, int, int]:
    """The problem and its 0-based line and column (libyaml's marks quote no snippet)."""
    assert error.problem_mark is not None
    return error.problem, error.problem_mark.line, error.problem_mark.column


def _pure_refusal(text: str) -> tuple[str | None, int, int]:
    with pytest.raises(yaml.composer.ComposerError) as refused:
        loader._compose_pure(text)
    return _problem(refused.value)


@needs_libyaml
@pytest.mark.parametrize(
    "name",
    [
        "flow nesting of 45",
        "flow nesting of exactly 41 with a scalar",
        "block nesting of 45",
        "alias bomb",
    ],
)
def test_the_walk_refuses_as_the_pure_composer_does(name: str) -> None:
    """Depth and expansion: the walk over libyaml's graph finds the very refusal (problem
    and mark) the pure composer raises; it never needs the fallback to find it."""
    refusal = loader._over_limits(_compose_c(BAD[name]))
    assert refusal is not None
    assert _problem(refusal) == _pure_refusal(BAD[name])


@needs_libyaml
@pytest.mark.parametrize("text", ["a: &a [*a]\n", "a: &m {b: [*m]}\n", "a: &a\n  - x\n  - *a\n"])
def test_the_walk_ends_on_a_cyclic_graph(text: str) -> None:
    """libyaml, like PyYAML, registers an anchor before composing its children, so a
    recursive alias composes to a cycle; the walk refuses it rather than looping."""
    refusal = loader._over_limits(_compose_c(text))
    assert refusal is not None
    assert "recursive alias" in str(refusal)


@needs_libyaml
def test_a_shared_dag_costs_its_distinct_nodes_and_passes_when_small() -> None:
    # 9**5 * 10 ... about 66,000 nodes once expanded, 60 distinct ones: accepted.
    node = _compose_c(_alias_bomb(4))
    assert loader._over_limits(node) is None
    # 9**8: over the limit, found without expanding anything.
    assert loader._over_limits(_compose_c(_alias_bomb(8))) is not None


@needs_libyaml
def test_an_alias_used_at_a_deeper_place_than_its_anchor_counts_its_anchors_depth() -> None:
    """Depth is the text's: an anchored 35-deep list used again under 10 more levels is
    fine for the pure composer (an alias use composes nothing), so for the walk too."""
    deep = "[" * 35 + "x" + "]" * 35
    text = f"a: &d {deep}\nb: " + "[" * 10 + "*d" + "]" * 10 + "\n"
    assert loader._compose_pure(text) is not None
    assert loader._over_limits(_compose_c(text)) is None


def _read(text: str) -> tuple[Any, dict[Any, tuple[int, int]], dict[Any, tuple[int, int]]]:
    node = loader._compose(text)
    assert node is not None
    marks = loader._Marks()
    data = loader._to_data(node, (), marks, [])
    return (
        data,
        {loc: (m.line, m.column) for loc, m in marks.key.items()},
        {loc: (m.line, m.column) for loc, m in marks.value.items()},
    )


CRAFTED = (
    "a: ~\nb:\nc: null\nd: 'null'\ne: \"~\"\nf: no\ng: 1e3\n"
    'h: {é→ü: x, bad: 2}\n"ñ": [é, ok, ✓ done]\n'
    "i: |\n  line one\n  line two\nj: >-\n  folded\n  text\nk: &s shared\nl: *s\n"
)


@pytest.mark.parametrize(
    "path",
    [HERE / "valid.yaml", ROOT / "tests" / "grading" / "pack.yaml", None],
    ids=["valid.yaml", "tests/grading/pack.yaml", "nulls, styles, non-ASCII columns"],
)
def test_both_composers_read_the_same_data_at_the_same_marks(
    path: Path | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if loader._libyaml_loader() is None:
        pytest.skip("libyaml (with its nesting limit) is not installed")
    text = CRAFTED if path is None else path.read_text(encoding="utf-8")
    fast = _read(text)
    monkeypatch.setattr(loader, "_libyaml_loader", lambda: None)
    assert fast == _read(text)
    if path is None:
        data = fast[0]
        assert [data[k] for k in "abcdefg"] == [None, None, None, "null", "~", "no", "1e3"]
