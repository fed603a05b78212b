"""Sentence splitting and the token stream every later stage reads.

Sentences end at ``.``, ``!``, ``?`` and line ends, but never at a dot inside code
(``x.grad``), a number (``8.0``), a printed tensor (``tensor([8.])``) or an abbreviation
(``e.g.``); that is decided per chunk by :mod:`bot.grading.tokens`. Commas, colons,
semicolons, brackets, quotes, ``...`` and spaced dashes are *clause breaks*: they do not end
a sentence (a proximity match may cross them) but they end a negation's scope.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.grading.numbers import (
    NUMBER_WORDS,
    counts,
    number_value,
    symbolic_operands,
    wrong_arithmetic,
)
from bot.grading.tokens import (
    BREAK,
    CODE,
    END,
    KEYWORD_VALUES,
    NUM,
    OP,
    QEND,
    WORD,
    is_keyword_target,
    pieces,
)


@dataclass(slots=True)
class TokenStream:
    """A normalised answer as parallel lists, one entry per token (word, code, number, op).

    Attributes:
        surf: the token text: lower-case word, canonical code (``x.grad.zero_``), number
            text (``8.0``) or operator (``+=``).
        kind: ``WORD``, ``CODE``, ``NUM`` or ``OP`` from :mod:`bot.grading.tokens`.
        sent: the sentence index of each token (0-based, increasing).
        brk: whether a clause break (``,`` ``;`` ``:`` ``-`` bracket, quote) precedes it.
        values: the value each number token states (also ``eight``), by token index; a
            number inside wrong arithmetic (``4 + 4 = 9``) is left out.
        questions: indices of sentences that end with ``?``.
        wrong_arithmetic: the answer states a computation that does not hold
            (``4 + 4 = 9``).
    """

    surf: list[str] = field(default_factory=list)
    kind: list[int] = field(default_factory=list)
    sent: list[int] = field(default_factory=list)
    brk: list[bool] = field(default_factory=list)
    values: dict[int, float] = field(default_factory=dict)
    questions: set[int] = field(default_factory=set)
    wrong_arithmetic: bool = False

    def __len__(self) -> int:
        return len(self.surf)


_Plan = tuple[tuple[str, ...], tuple[int, ...], bool, int]
"""A chunk's tokens (texts, kinds), whether a clause break precedes them, and what follows
them: 0 nothing, 1 a clause break, 2 a sentence end, 3 a question mark. Only chunks whose
pieces are "break? tokens* (break|end)?" get a plan; the rest get :data:`_COMPLEX` and take
the general path."""

_COMPLEX: _Plan = ((), (), False, -1)
"""The plan of a chunk that must take the general path (tail -1)."""

_plans: dict[str, _Plan] = {}
_PLAN_LIMIT = 100_000
_TAIL = {BREAK: 1, END: 2, QEND: 3}


def _plan(chunk: str) -> _Plan:
    parts = pieces(chunk)
    lead = bool(parts) and parts[0][0] == BREAK
    body = parts[1:] if lead else parts
    tail = 0
    if body and body[-1][0] > OP:
        tail = _TAIL[body[-1][0]]
        body = body[:-1]
    plan = _COMPLEX
    if all(k <= OP for k, _ in body) and not any(
        k == WORD and t in KEYWORD_VALUES for k, t in body
    ):
        plan = (tuple(t for _, t in body), tuple(k for k, _ in body), lead, tail)
    if len(_plans) >= _PLAN_LIMIT:
        _plans.clear()
    _plans[chunk] = plan
    return plan


def segment(text: str) -> TokenStream:
    """Tokenize normalised text and split it into sentences and clauses.

    Args:
        text: output of :func:`bot.grading.normalize.normalize`.

    Returns:
        The token stream; punctuation is folded into ``sent``/``brk``/``questions``.
    """
    stream = TokenStream()
    surf, kind, sent, brk = stream.surf, stream.kind, stream.sent, stream.brk
    sentence = 0
    pending_break = False
    open_tokens = 0  # tokens in the current sentence
    for line in text.split("\n"):
        for chunk in line.split():
            plan = _plans.get(chunk) or _plan(chunk)
            if plan[3] >= 0:  # the common case: words, then maybe "," or "."
                texts, kinds, lead, tail = plan
                if len(texts) == 1:
                    surf.append(texts[0])
                    kind.append(kinds[0])
                    sent.append(sentence)
                    brk.append(pending_break or lead)
                    open_tokens += 1
                    pending_break = False
                elif texts:
                    surf.extend(texts)
                    kind.extend(kinds)
                    sent.extend([sentence] * len(texts))
                    brk.append(pending_break or lead)
                    if len(texts) > 1:
                        brk.extend([False] * (len(texts) - 1))
                    open_tokens += len(texts)
                    pending_break = False
                elif lead:
                    pending_break = True
                if tail == 1:
                    pending_break = True
                elif tail and open_tokens:
                    if tail == 3:
                        stream.questions.add(sentence)
                    sentence += 1
                    open_tokens = 0
                    pending_break = False
                continue
            for piece_kind, piece in pieces(chunk):
                if piece_kind <= OP:
                    if (
                        piece_kind == WORD
                        and piece in KEYWORD_VALUES
                        and open_tokens >= 2
                        and is_keyword_target([(kind[-2], surf[-2]), (kind[-1], surf[-1])])
                        and sent[-2] == sentence
                    ):  # "retain_graph = True" written with spaces
                        surf.pop()
                        kind.pop()
                        sent.pop()
                        brk.pop()
                        surf[-1] = f"{surf[-1]}={piece}"
                        open_tokens -= 1
                        continue
                    surf.append(piece)
                    kind.append(piece_kind)
                    sent.append(sentence)
                    brk.append(pending_break)
                    pending_break = False
                    open_tokens += 1
                elif piece_kind == BREAK:
                    pending_break = True
                elif open_tokens:  # END or QEND closes a non-empty sentence
                    if piece_kind == QEND:
                        stream.questions.add(sentence)
                    sentence += 1
                    open_tokens = 0
                    pending_break = False
        if open_tokens:
            sentence += 1
            open_tokens = 0
        pending_break = False
    values = stream.values
    for i, s in enumerate(surf):
        if s in NUMBER_WORDS or kind[i] == NUM:
            value = number_value(kind[i], s)
            if value is not None:
                values[i] = value
    if len(values) >= 2:
        bad = wrong_arithmetic(surf, kind, sent, values)
        stream.wrong_arithmetic = bool(bad)
        for i in bad:
            del values[i]
    if values:
        for i in symbolic_operands(surf, kind, values) | counts(surf, kind, brk, values):
            del values[i]
    return stream


__all__ = ["CODE", "NUM", "OP", "WORD", "TokenStream", "segment"]
