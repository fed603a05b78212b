"""``tutor sandbox run`` shows a run as readable, inert text and refuses a bad picture path."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.cli.sandbox import show_run
from sandbox.protocol import JobOutcome, Limits, RunResult
from tests.conftest import run_tutor


def _shown(stdout: str, stderr: str = "", **outcome: object) -> tuple[str, str]:
    result = RunResult.from_outcome(
        JobOutcome(stdout=stdout, stderr=stderr, **outcome),  # type: ignore[arg-type]
        Limits(),
        "namespaces",
        "2.13.0",
    )
    out, err = io.StringIO(), io.StringIO()
    show_run(result, out, err)
    return out.getvalue(), err.getvalue()


def test_output_cut_mid_line_puts_the_status_on_a_line_of_its_own() -> None:
    out, err = _shown("x" * 100, output_truncated=True, exit_code=0)
    assert out == "x" * 100
    assert err.startswith("\n[stopped: printed more than 64 KiB, ")


def test_output_ending_in_a_newline_gets_no_blank_line() -> None:
    out, err = _shown("tensor([1.])\n", exit_code=0)
    assert (out, err.split(",")[0]) == ("tensor([1.])\n", "[exit 0")


def test_stderr_after_stdout_cut_mid_line_starts_on_a_new_line() -> None:
    _, err = _shown("partial", "Traceback ...\n", exit_code=1)
    assert err.startswith("\nTraceback ...\n[exit 1, ")


def test_terminal_escapes_in_the_output_are_shown_not_obeyed() -> None:
    out, err = _shown("\x1b[31mred\x1b[0m\n", "\x1b[2J\n", exit_code=0)
    assert "\x1b" not in out + err
    assert out == "\u241b[31mred\u241b[0m\n"


def test_a_right_to_left_override_in_the_output_is_shown_as_its_code_point() -> None:
    out, err = _shown("x = \u202e)]1[(rosnet\n", "\u2066e\u2069\n", exit_code=0)
    assert "\u2066" not in err
    assert out == "x = \u27e8U+202E\u27e9)]1[(rosnet\n"


def test_a_graph_png_in_a_missing_directory_is_refused_as_input_and_nothing_is_created(
    tmp_path: Path,
) -> None:
    """Exit 2, "the input was refused", as --help says (it was 1, the sandbox failed:
    fresh10 #8)."""
    snippet = tmp_path / "ok.py"
    snippet.write_text("print(1)\n")
    target = tmp_path / "nonexistent" / "g.png"
    done = run_tutor("sandbox", "run", str(snippet), "--graph-png", str(target), timeout=120)
    assert done.returncode == 2, done.stderr
    assert "does not exist" in done.stderr
    assert str(target.parent) in done.stderr
    assert not target.parent.exists()


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("ok.py", "must end in .png"),
        ("old.png", "already exists; nothing is overwritten"),
        ("", "needs a file name"),
    ],
)
def test_a_graph_png_that_would_overwrite_or_is_not_a_png_is_refused(
    tmp_path: Path, name: str, words: str
) -> None:
    """A tester's ``--graph-png ok.py`` turned the snippet itself into a PNG."""
    from bot.cli.sandbox import graph_png_problem

    (tmp_path / "ok.py").write_text("print(1)\n")
    (tmp_path / "old.png").write_bytes(b"keep me")
    problem = graph_png_problem(tmp_path / name if name else Path(""))
    assert problem is not None
    assert words in problem
    assert (tmp_path / "ok.py").read_text() == "print(1)\n"
    assert (tmp_path / "old.png").read_bytes() == b"keep me"


def test_saving_a_picture_never_overwrites_an_existing_file(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from sandbox.graph_render import save_graph_png
    from tests.sandbox.test_graph_render import ec7_like

    target = tmp_path / "g.png"
    target.write_bytes(b"keep me")
    with pytest.raises(FileExistsError):
        save_graph_png(ec7_like(with_cut=True), target)
    assert target.read_bytes() == b"keep me"


def _graph_run(
    graph: object = None, graph_error: str | None = None, **outcome: object
) -> RunResult:
    return RunResult.from_outcome(
        JobOutcome(**outcome),  # type: ignore[arg-type]
        Limits(),
        "namespaces",
        "2.13.0",
        graph=graph,  # type: ignore[arg-type]
        graph_error=graph_error,
    )


def test_a_timed_out_run_keeps_its_timeout_status_under_graph_png(tmp_path: Path) -> None:
    from bot.cli.sandbox import save_graph_png_status

    result = _graph_run(
        graph_error="the job ended before its graph was read",
        exit_code=None,
        signal=9,
        timed_out=True,
    )
    err = io.StringIO()
    assert save_graph_png_status(result, tmp_path / "g.png", "loop.py", err) == 4
    assert not (tmp_path / "g.png").exists()
    assert "the job ended before its graph was read" in err.getvalue()


def test_a_run_that_exits_non_zero_with_an_empty_graph_keeps_3_and_writes_no_png(
    tmp_path: Path,
) -> None:
    from bot.cli.sandbox import save_graph_png_status
    from sandbox.protocol import AutogradGraph

    result = _graph_run(graph=AutogradGraph(), exit_code=3)
    assert save_graph_png_status(result, tmp_path / "g.png", "exit3.py", io.StringIO()) == 3
    assert not (tmp_path / "g.png").exists()


def test_a_clean_run_without_autograd_history_writes_no_png_and_exits_1(tmp_path: Path) -> None:
    from bot.cli.sandbox import save_graph_png_status
    from sandbox.protocol import AutogradGraph

    result = _graph_run(graph=AutogradGraph(untracked=["x"]), exit_code=0)
    err = io.StringIO()
    assert save_graph_png_status(result, tmp_path / "g.png", "plain.py", err) == 1
    assert not (tmp_path / "g.png").exists()
    assert err.getvalue() == (
        f"no graph picture ({tmp_path / 'g.png'} not written): the snippet leaves no tensor "
        "with autograd history: nothing to draw\n"
    )


def test_a_clean_run_with_a_graph_draws_it_and_exits_0(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from bot.cli.sandbox import save_graph_png_status
    from tests.sandbox.test_graph_render import ec7_like

    result = _graph_run(graph=ec7_like(with_cut=True), exit_code=0)
    assert save_graph_png_status(result, tmp_path / "g.png", "ok.py", io.StringIO()) == 0
    assert (tmp_path / "g.png").read_bytes().startswith(b"\x89PNG")


def test_the_run_help_says_no_png_is_written_without_a_graph(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bot.cli import main

    with pytest.raises(SystemExit):
        main(["sandbox", "run", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "no PNG is written when it leaves no autograd graph" in help_text
    assert "keeps its own 3-10" in help_text


def test_a_file_over_the_snippet_limit_is_one_sentence_naming_it_and_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """fresh18 #3: it was "code: code is 800,001 bytes" (the protocol's field path)."""
    from bot.cli import main

    snippet = tmp_path / "huge.py"
    snippet.write_bytes(b"#" * 800_001)
    assert main(["sandbox", "run", str(snippet)]) == 2
    assert capsys.readouterr().err == (
        f"tutor sandbox run: {snippet}: the file is 800,001 bytes, over the 65,536-byte "
        "limit of a snippet\n"
    )


def test_a_file_that_is_not_utf8_names_its_byte_as_env_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    snippet = tmp_path / "latin1.py"
    snippet.write_bytes("print('caf\xe9')\n".encode("latin-1"))
    assert main(["sandbox", "run", str(snippet)]) == 2
    assert capsys.readouterr().err == (
        f"tutor sandbox run: {snippet}: not UTF-8 (byte 0xe9 at position 10)\n"
    )


@pytest.mark.parametrize(
    ("name", "content", "error", "words"),
    [
        ("missing.py", None, "invalid", "cannot read: No such file or directory"),
        ("latin1.py", b"x = '\xe9'\n", "invalid", "not UTF-8 (byte 0xe9 at position 5)"),
        (
            "big.py",
            b"#" * 70_000,
            "too_large",
            "the file is 70,000 bytes, over the 65,536-byte limit of a snippet",
        ),
    ],
)
def test_a_refused_file_is_named_in_the_json_error(
    tmp_path: Path, name: str, content: bytes | None, error: str, words: str
) -> None:
    """``--json`` said ``cannot read: No such file or directory`` without the file, which
    text mode names (fresh22 #10): the message starts with it, and ``path`` holds it."""
    from sandbox.protocol import FileRefused

    snippet = tmp_path / name
    if content is not None:
        snippet.write_bytes(content)
    done = run_tutor("sandbox", "run", str(snippet), "--json", timeout=120)
    assert done.returncode == 2, done.stderr
    refused = FileRefused.model_validate_json(done.stdout)
    assert (refused.error, refused.path) == (error, str(snippet))
    assert refused.message == f"{snippet}: {words}"
    text = run_tutor("sandbox", "run", str(snippet), timeout=120)
    assert text.stderr == f"tutor sandbox run: {snippet}: {words}\n"
