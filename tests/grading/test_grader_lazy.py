"""``Grader(eager=False)``: each rubric compiled on its item's first grade, alike in result,
once per item even from several threads, and no check lost by waiting."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bot.content.loader import Bank, ContentErrors, parse_pack
from bot.grading import Grader, Response, UnknownItem
from bot.grading.grader import CompiledItem

ANSWERS = [
    ("TF3", False, "False, backward adds into .grad so the two gradients accumulate."),
    ("TF3", True, "True, it overwrites the old gradient."),
    ("SE2", None, "The loss is not a scalar, so backward needs a gradient argument."),
    ("WHY2", None, "Because autograd only knows how to start from a scalar output."),
    ("EC6", None, "no idea"),
]


def test_a_lazy_grader_compiles_nothing_until_it_grades(pack: Bank) -> None:
    lazy = Grader(pack, warm=False, eager=False)
    assert lazy._items == {}
    assert len(lazy) == len(pack)
    assert "TF3" in lazy
    assert lazy.item_ids == [item.id for item in pack]
    assert lazy.item("TF3").id == "TF3"
    lazy.response("TF3", False, "it accumulates")
    assert lazy._items == {}
    lazy.grade(lazy.response("TF3", False, "it accumulates"))
    assert list(lazy._items) == ["TF3"]


def test_a_lazy_grader_grades_as_the_eager_one(pack: Bank, grader: Grader) -> None:
    lazy = Grader(pack, warm=False, eager=False)
    for item_id, verdict, text in ANSWERS:
        response = Response(item_id=item_id, verdict=verdict, text=text)
        assert lazy.grade(response) == grader.grade(response)


def test_the_eager_default_compiles_every_item(pack: Bank, grader: Grader) -> None:
    assert list(grader._items) == [item.id for item in pack]


def test_a_lazy_grader_refuses_an_unknown_item_as_the_eager_one(pack: Bank) -> None:
    lazy = Grader(pack, warm=False, eager=False)
    with pytest.raises(UnknownItem, match="TF99"):
        lazy.grade(Response(item_id="TF99", text="x"))
    with pytest.raises(UnknownItem, match="TF99"):
        lazy.item("TF99")
    with pytest.raises(UnknownItem, match="TF99"):
        lazy.response("TF99", None, "x")
    assert lazy._items == {}


def test_threads_grading_one_item_at_once_compile_it_once(pack: Bank) -> None:
    """Every thread gets the one compiled rubric. Observed through the objects, not by
    patching ``compile_item``: the compiled grader (mypyc) calls it directly, so a patch
    of the module attribute is not seen there (stop 19's CI)."""
    lazy = Grader(pack, warm=False, eager=False)
    start = threading.Barrier(4)
    failures: list[BaseException] = []
    seen: list[CompiledItem] = []

    def grade_once() -> None:
        try:
            start.wait()
            seen.append(lazy._compiled("TF3"))
            lazy.grade(Response(item_id="TF3", verdict=False, text="they accumulate"))
        except BaseException as exc:  # pragma: no cover - reported below
            failures.append(exc)

    threads = [threading.Thread(target=grade_once) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert len(seen) == 4
    assert all(compiled is seen[0] for compiled in seen)
    assert list(lazy._items) == ["TF3"]


VALID = (Path(__file__).parent.parent / "content" / "valid.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("alternative", "message"),
    [
        ("`unclosed", "unclosed backtick in pattern '`unclosed'"),
        ("sum||total", "empty alternative in 'sum||total' (stray '|')"),
    ],
)
def test_a_bad_item_synonym_is_refused_when_the_pack_loads(alternative: str, message: str) -> None:
    """Compiling was the first to find a bad item-level synonym; a lazy grader may compile
    an item late, and ``tutor content check`` never compiles, so loading checks it now."""
    text = VALID.replace(
        "      required: [accumulates]\n",
        f'      required: [accumulates]\n      synonyms: {{accumulate: ["{alternative}"]}}\n',
    )
    with pytest.raises(ContentErrors) as refused:
        parse_pack(text, "mem.yaml")
    [error] = refused.value.errors
    assert error.where == "TF1.rubric.synonyms.accumulate[0]"
    assert error.message == message


def test_a_good_item_synonym_still_loads_and_grades() -> None:
    text = VALID.replace(
        "      required: [accumulates]\n",
        '      required: [accumulates]\n      synonyms: {accumulate: ["pile* up"]}\n',
    )
    pack = parse_pack(text, "mem.yaml")
    lazy = Grader(pack.items, warm=False, eager=False)
    result = lazy.grade(Response(item_id="TF1", verdict=False, text="False, they pile up."))
    assert "accumulates" in result.concepts_hit
