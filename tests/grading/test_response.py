"""The grader's input boundary: a :class:`Response` always holds valid Unicode."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.grading import Grader, Response
from bot.grading.models import replace_lone_surrogates

# Every code point except the surrogates: what a correct decoder can produce.
VALID_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=200)


def test_an_undecodable_byte_read_with_surrogateescape_becomes_the_replacement_character() -> None:
    read = b"caf\xe9 accumulates".decode("utf-8", "surrogateescape")
    assert Response(item_id="TF3", text=read).text == "caf\ufffd accumulates"


def test_a_lone_surrogate_from_a_json_escape_becomes_the_replacement_character() -> None:
    assert Response(item_id="TF3", text="a\ud800b\udfff").text == "a\ufffdb\ufffd"


def test_a_surrogate_pair_is_joined_into_its_character() -> None:
    assert replace_lone_surrogates("\ud83d\ude00") == "\U0001f600"


def test_a_lone_surrogate_in_the_item_id_is_replaced_too() -> None:
    assert Response(item_id="TF\udce9", text="x").item_id == "TF\ufffd"


@given(VALID_TEXT)
def test_valid_text_is_kept_exactly_as_typed(text: str) -> None:
    assert replace_lone_surrogates(text) is text


@given(st.text(max_size=200))
def test_any_text_comes_out_encodable_as_utf8(text: str) -> None:
    replace_lone_surrogates(text).encode("utf-8")


def test_text_with_an_undecodable_byte_is_graded_like_its_replaced_twin(grader: Grader) -> None:
    raw = b"False: .grad accumulat\xe9s, every backward adds to it".decode(
        "utf-8", "surrogateescape"
    )
    twin = "False: .grad accumulat\ufffds, every backward adds to it"
    assert grader.grade(Response(item_id="TF3", verdict=False, text=raw)) == grader.grade(
        Response(item_id="TF3", verdict=False, text=twin)
    )
