"""The line-protocol front end of ``tutor play`` (piped input, ``--script``, ``--json``).

Reads commands (:mod:`bot.play.protocol`) one line at a time, runs each through the
session and writes its events: plain text, or one JSON object per line with ``--json``.
Refused lines give an ``error`` event naming the line and the session goes on; the exit
status is 1 when any line was refused or the input ended with a question open, else 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TextIO

from bot.play.app import PlayContext
from bot.play.protocol import (
    MAX_LINE_CHARS,
    ErrorEvent,
    Event,
    ProtocolError,
    Quit,
    parse_line,
)
from bot.play.render import render_plain
from bot.play.session import PlaySession


def read_lines(stream: TextIO, limit: int = MAX_LINE_CHARS) -> Iterator[str]:
    """The lines of ``stream`` without reading more than ``limit + 1`` characters at once.

    A longer line is cut to ``limit + 1`` characters (so the parser refuses it) and its
    remainder is read and dropped in chunks, so a huge line never sits in memory.

    Yields:
        Each line without its newline.
    """
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if line.endswith("\n"):
            yield line[:-1]
            continue
        if len(line) <= limit:  # the last line, without a newline
            yield line
            return
        rest = line
        while rest and not rest.endswith("\n"):
            rest = stream.readline(limit + 1)
        yield line


class ScriptFrontEnd:
    """Writes events to ``out`` (and plain-text errors to ``err``), counting refusals.

    Args:
        out: where events go.
        err: where plain-text errors go (``--json`` writes them to ``out`` in order).
        json: one JSON object per event and line instead of text.
    """

    def __init__(self, out: TextIO, err: TextIO, *, json: bool) -> None:
        self.out = out
        self.err = err
        self.json = json
        self.errors = 0

    def emit(self, event: Event, line: int | None = None) -> None:
        """Write one event; an error event gets the input line number."""
        if isinstance(event, ErrorEvent):
            self.errors += 1
            if line is not None and event.line is None:
                event = event.model_copy(update={"line": line})
        if self.json:
            self.out.write(event.model_dump_json() + "\n")
        elif isinstance(event, ErrorEvent):
            self.out.flush()
            self.err.write(render_plain(event) + "\n")
            self.err.flush()
            return
        else:
            self.out.write(render_plain(event) + "\n")
        self.out.flush()


def run_script(
    context: PlayContext,
    session: PlaySession,
    stdin: TextIO,
    out: TextIO,
    err: TextIO,
    *,
    json: bool,
) -> int:
    """Run the line protocol until ``quit``, end of input or Ctrl-C.

    Returns:
        0 when every line was accepted; 1 when some line was refused or the input ended
        with a question open; 130 after Ctrl-C.
    """
    front = ScriptFrontEnd(out, err, json=json)
    front.emit(context.started(session.learner_id))
    reason = "eof"
    try:
        for number, line in enumerate(read_lines(stdin), start=1):
            try:
                command = parse_line(line)
            except ProtocolError as exc:
                front.emit(ErrorEvent(code=exc.code, message=str(exc)), number)
                continue
            if command is None:
                continue
            if isinstance(command, Quit):
                reason = "quit"
                break
            for event in context.run(session.handle(command)):
                front.emit(event, number)
    except KeyboardInterrupt:
        reason = "interrupted"
    if reason == "eof" and session.open is not None:
        item_id = session.open.item.id
        front.emit(
            ErrorEvent(
                code="input_ended",
                message=f"the input ended while {item_id} was open; nothing was recorded for it",
            )
        )
    front.emit(context.run(session.end(reason)))
    if reason == "interrupted":
        return 130
    return 1 if front.errors else 0


__all__ = ["ScriptFrontEnd", "read_lines", "run_script"]
