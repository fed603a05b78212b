"""``tutor sandbox``: serve the sandbox worker, or run one snippet through it.

The ``tutor`` process never imports torch: the torch-importing zygote is a separate process
(``python -m sandbox.zygote``) that the worker starts.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError


def tcp_port(text: str) -> int:
    """argparse type of ``--port``: a TCP port number, 0-65535 (0: any free port).

    Raises:
        argparse.ArgumentTypeError: not a whole number, or outside 0-65535, named.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0-65535)") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port number (0-65535)")
    return value


def tcp_listen_problem(host: str, port: int) -> str | None:
    """Why the worker could not listen on ``host:port``, found in milliseconds by binding
    a socket and closing it again, before the worker's start (about 5 s: it imports torch).

    The probe binds as aiohttp will (``SO_REUSEADDR``, so a port in TIME_WAIT is not
    refused); another program may still take the port in between, which
    :func:`sandbox.service.serve` then reports as one line too.

    Args:
        host: the address to listen on (``127.0.0.1``, ``0.0.0.0``, a name).
        port: the TCP port, 0-65535.

    Returns:
        The reason (``Address already in use``, ``Name or service not known``...), or None.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as exc:  # socket.gaierror is one too
        return exc.strerror or str(exc)
    return None


def register(sub: Any) -> None:
    """Add ``tutor sandbox ...`` to the CLI."""
    from bot.cli.numbers import field_int_range, int_in
    from sandbox.settings import ENV_PREFIX, SandboxSettings

    sandbox = sub.add_parser("sandbox", help="run snippets in the isolated, warm torch worker")
    ssub = sandbox.add_subparsers(dest="sandbox_command", metavar="ACTION", required=True)

    def common(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--backend",
            choices=["auto", "namespaces", "container", "none"],
            default=None,
            help="isolation backend (default: TUTOR_SANDBOX_BACKEND or auto)",
        )
        parser.add_argument(
            "--python", default=None, help="interpreter with torch for the worker (default: this)"
        )
        parser.add_argument(
            "--content",
            nargs="+",
            type=Path,
            default=None,
            metavar="PATH",
            help="packs whose snippets are curated (default: content/)",
        )

    serve = ssub.add_parser("serve", help="serve POST /run and GET /health (aiohttp)")
    where = serve.add_mutually_exclusive_group()
    where.add_argument("--unix", type=Path, default=None, metavar="PATH", help="Unix socket path")
    where.add_argument("--host", default="127.0.0.1", help="TCP address (default 127.0.0.1)")
    serve.add_argument(
        "--port",
        type=tcp_port,
        default=8060,
        help="TCP port, 0-65535 (default 8060; 0: any free port, printed on stderr)",
    )
    for field, what in (("concurrency", "jobs at once"), ("queue", "jobs that may wait")):
        # range and default from the settings class, so flag and variable cannot drift
        low, high = field_int_range(SandboxSettings, field)
        default = SandboxSettings.model_fields[field].default
        serve.add_argument(
            f"--{field}",
            type=int_in(low, high),
            default=None,
            help=f"{what}, {low}-{high} (default: {ENV_PREFIX}{field.upper()} or {default})",
        )
    serve.add_argument("--cache", type=Path, default=None, help="JSON file for curated results")
    serve.add_argument(
        "--prewarm", action="store_true", help="run every curated snippet at start-up"
    )
    common(serve)
    serve.set_defaults(handler=cmd_serve)

    run = ssub.add_parser(
        "run",
        help="run one snippet file and print its result",
        epilog="exit status: 0 ran to its end with exit code 0; "
        + "; ".join(f"{code} {how}" for how, code in RUN_EXIT_STATUS.items() if code)
        + "; 1 the sandbox failed, or the snippet ran cleanly but its --graph-png picture "
        "could not be drawn (no PNG is written when it leaves no autograd graph; a snippet "
        "that did not end cleanly keeps its own 3-10); 2 the input (the file, the "
        "--graph-png path) or a setting was refused, before anything ran. "
        "TUTOR_SANDBOX_CACHE_PATH is not read: one run keeps no cache.",
    )
    run.add_argument("file", type=Path, help="the snippet (Python source)")
    run.add_argument(
        "--json",
        action="store_true",
        help="print the RunResult as JSON (a refused file: error, message and path)",
    )
    run.add_argument(
        "--graph",
        action="store_true",
        help="also extract the autograd graph the snippet leaves (in the JSON as 'graph')",
    )
    run.add_argument(
        "--graph-png",
        type=Path,
        default=None,
        metavar="PATH",
        help="draw the autograd graph the snippet leaves into this PNG (implies --graph)",
    )
    common(run)
    run.set_defaults(handler=cmd_run)


RUN_EXIT_STATUS: dict[str, int] = {
    "exit 0": 0,
    "exited non-zero": 3,
    "timed out": 4,
    "ran out of memory": 5,
    "used up its CPU time": 6,
    "printed more than the output cap": 7,
    "killed by a signal": 8,
    "hit the process limit": 9,
    "wrote a file past the file-size limit": 10,
}
"""``tutor sandbox run``'s exit status for each way a snippet can end (1 and 2 are the
command's own failures: the sandbox failed, or the input or a setting was refused). Each
limit has its own status: a file-size stop was 8, "killed by a signal" (it is SIGXFSZ's
stop), which a script cannot tell from a crash (fresh10 #8)."""


def run_exit_status(result: Any) -> int:
    """The exit status of ``tutor sandbox run`` for a snippet's :class:`RunResult`.

    The cause is picked in the order of :func:`sandbox.protocol.describe_outcome` (wall
    time, memory, CPU time, output cap, file size, signal), then the process limit, then
    the snippet's own exit code; see :data:`RUN_EXIT_STATUS`.

    Args:
        result: the :class:`~sandbox.protocol.RunResult`.

    Returns:
        0 when the snippet ran to its end with exit code 0; 1 when the worker could not run
        it (``result.error``); else the status of its cause (3-10).
    """
    if result.error:
        return 1
    causes = [
        (result.timed_out, "timed out"),
        (result.memory_exceeded, "ran out of memory"),
        (result.cpu_exceeded, "used up its CPU time"),
        (result.output_truncated, "printed more than the output cap"),
        # before the signal: a file-size stop is reported as SIGXFSZ too
        (result.file_limit_mib is not None, "wrote a file past the file-size limit"),
        (result.signal is not None, "killed by a signal"),
        (result.pids_exceeded, "hit the process limit"),
        (result.exit_code != 0, "exited non-zero"),
    ]
    for happened, cause in causes:
        if happened:
            return RUN_EXIT_STATUS[cause]
    return 0


FLAGS = {
    "backend": "--backend",
    "python": "--python",
    "content": "--content",
    "concurrency": "--concurrency",
    "queue": "--queue",
    "cache_path": "--cache",
}
"""The flags that stand for a ``TUTOR_SANDBOX_*`` variable, by settings field."""


def _settings(args: argparse.Namespace, *, cache: bool = True) -> Any:
    """The worker's settings: the environment with the flags on top.

    Args:
        args: the parsed command line.
        cache: False for a command that keeps no result cache (``sandbox run``): the
            cache path (``TUTOR_SANDBOX_CACHE_PATH``) is then neither read nor checked, so
            a bad one cannot stop it (fresh10 #9: it exited 2 over a cache it never uses).

    Raises:
        SandboxSettingsError: a bad value (each problem names its variable or flag).
    """
    from sandbox.settings import load_sandbox_settings

    overrides: dict[str, Any] = {}
    for name in ("backend", "python", "content", "concurrency", "queue"):
        value = getattr(args, name, None)
        if value is not None:
            overrides[name] = value
    if not cache:
        overrides["cache_path"] = None  # a keyword beats the environment and .env
    elif getattr(args, "cache", None) is not None:
        overrides["cache_path"] = args.cache
    if getattr(args, "prewarm", False):
        overrides["prewarm"] = True
    return load_sandbox_settings(overrides, FLAGS)


def bad_sandbox_settings(prog: str) -> bool:
    """Check the ``TUTOR_SANDBOX_*`` variables a local worker would be started with.

    Commands that start a local worker (``tutor play``, ``tutor content verify``, ``tutor
    bot``, ``tutor health``) call this first, so a bad value stops them with the variable
    named (exit 2) instead of a worker that dies during start-up.

    A cache file the worker would not use (``TUTOR_SANDBOX_CACHE_PATH`` a directory, or
    not a cache: :func:`sandbox.cache.cache_file_problem`) is one warning line, not a stop.

    Args:
        prog: the command, prefixed to each line (``tutor play``).

    Returns:
        True after printing one line per bad value on stderr; False when all are valid.
    """
    from sandbox.cache import cache_file_problem
    from sandbox.settings import SandboxSettingsError, load_sandbox_settings

    try:
        settings = load_sandbox_settings()
    except SandboxSettingsError as exc:
        for problem in exc.problems:
            print(f"{prog}: {problem}", file=sys.stderr)
        return True
    if settings.cache_path is not None and (note := cache_file_problem(settings.cache_path)):
        # The worker's own stderr goes to its log file: say it here, where the user looks.
        print(f"{prog}: warning: {note}", file=sys.stderr)
    return False


def _print_problems(exc: Any) -> int:
    for problem in exc.problems:
        print(f"tutor sandbox: {problem}", file=sys.stderr)
    return 2


def cmd_serve(args: argparse.Namespace) -> int:
    """Start the worker and serve HTTP until interrupted.

    Exit status: 0 after a clean stop, 1 when the worker could not start or cannot listen
    on ``--host``/``--port`` (a port in use: :func:`tcp_listen_problem`, checked before the
    worker starts), 2 on a bad ``TUTOR_SANDBOX_*`` value or flag (one line each, naming it;
    ``--port`` outside 0-65535 too) or a ``--unix`` path whose directory is missing
    (:func:`unix_socket_problem`; checked before the worker starts).
    """
    from sandbox.cache import FileResultCache, MemoryResultCache, ResultCache
    from sandbox.errors import SandboxError
    from sandbox.service import serve
    from sandbox.settings import SandboxSettingsError
    from sandbox.worker import Worker, describe_backend

    try:
        settings = _settings(args)
    except SandboxSettingsError as exc:
        return _print_problems(exc)
    if args.unix is not None and (problem := unix_socket_problem(args.unix)):
        print(f"tutor sandbox serve: --unix {args.unix}: {problem}", file=sys.stderr)
        return 2
    if args.unix is None and (problem := tcp_listen_problem(args.host, args.port)):
        print(
            f"tutor sandbox serve: cannot listen on {args.host} port {args.port}: {problem}",
            file=sys.stderr,
        )
        return 1
    cache: ResultCache = MemoryResultCache()
    if settings.cache_path is not None:
        cache = FileResultCache(settings.cache_path)
        if cache.problem:
            print(f"tutor sandbox serve: warning: {cache.problem}", file=sys.stderr)

    async def main() -> None:
        async with Worker(settings, cache=cache) as worker:
            assert worker.hello is not None
            print(describe_backend(worker.hello), file=sys.stderr, flush=True)
            await serve(
                worker,
                settings.max_request_bytes,
                unix=args.unix,
                host=args.host,
                port=args.port,
            )

    try:
        asyncio.run(main())
    except SandboxError as exc:
        print(f"sandbox: {exc}", file=sys.stderr)
        return 1
    return 0


def unix_socket_problem(path: Path) -> str | None:
    """Why ``--unix path`` cannot be served on, or None when its directory exists.

    A missing directory is refused rather than created (as ``--db``, ``--graph-png`` and
    ``tutor play``'s ``graph DIR`` do), so a mistyped path never creates directories such
    as ``/nonexistent/`` nor a socket the bot is not looking at.

    Args:
        path: the socket path given to ``tutor sandbox serve --unix``.

    Returns:
        One clause (``the directory '/x' does not exist: ...``), or None.
    """
    from bot.settings import missing_directory

    if path.is_dir():
        return "is a directory: give the socket's file path, e.g. /run/sandbox/sandbox.sock"
    return missing_directory(path, "the socket")


STARTING_NOTICE = "starting the sandbox worker (it imports torch: a few seconds)..."
"""What ``tutor sandbox run`` prints on a terminal before the worker's start: 6.1 s in all
at load ~13, 4.8 s of it the worker's torch import and warm-up (``benchmarks/sandbox_run.py``,
sandbox/README.md "Start-up of ``tutor sandbox run``")."""


def announce_start(err: TextIO) -> None:
    """Print :data:`STARTING_NOTICE` on ``err`` when it is a terminal, so a person does not
    take the worker's start for a hang; a script's captured stderr stays the run's own.

    Args:
        err: where to say it (``sys.stderr``).
    """
    if err.isatty():
        print(STARTING_NOTICE, file=err, flush=True)


def cmd_run(args: argparse.Namespace) -> int:
    """Run one file through a fresh worker; print the result (``--json``: the RunResult).

    With ``--graph`` the result carries the autograd graph; ``--graph-png PATH`` also draws
    it, in this process (``sandbox.graph_render``: needs the ``sandbox`` extra, like the
    worker this command starts).

    Exit status: 0 when the snippet ran to its end with exit code 0; 3-10 when it did not
    (:data:`RUN_EXIT_STATUS`: 3 exited non-zero, 4 timed out, 5 ran out of memory, 6 used
    up its CPU time, 7 printed more than the output cap, 8 killed by a signal, 9 hit the
    process limit, 10 wrote a file past the file-size limit); 2 when the input was refused
    before anything ran: the snippet (too large, not valid UTF-8, no isolation), a
    ``--graph-png`` path (:func:`graph_png_problem`: a missing directory, not ``.png``, an
    existing file; no directory is ever created, as in ``tutor play``'s ``graph DIR``) or a
    ``TUTOR_SANDBOX_*`` value or flag (one line each, naming it); 1 when the sandbox failed
    or a snippet that ran cleanly has no ``--graph-png`` picture (no graph, an empty one:
    no PNG is written; :func:`save_graph_png_status`). A snippet's own 3-10 always wins.
    A refused file is one stderr line naming it, or with ``--json`` one
    :class:`~sandbox.protocol.FileRefused` object on stdout (its ``path`` and ``message``
    name it).

    ``TUTOR_SANDBOX_CACHE_PATH`` is not read: one run keeps no result cache, so a bad
    value does not stop it.

    The question bank's snippets (the curated set) are loaded only when the worker has no
    isolation (backend ``none``), the one case they change a single run: only they may run.
    Parsing the packs takes seconds, as long as the worker's start.
    """
    from bot.files import not_utf8_byte
    from sandbox.curated import CuratedSnippets
    from sandbox.errors import SandboxError, SandboxRejected
    from sandbox.protocol import (
        MAX_CODE_BYTES,
        ErrorBody,
        FileRefused,
        RunRequest,
        RunResult,
        first_error,
    )
    from sandbox.settings import SandboxSettingsError
    from sandbox.worker import Worker
    from sandbox.zygote import CONTAINER_WALL_MISSING

    try:
        settings = _settings(args, cache=False)
    except SandboxSettingsError as exc:
        return _print_problems(exc)

    def refuse(body: ErrorBody) -> int:
        named = f"{args.file}: {body.message}"  # the file, as text mode says it (fresh22 #10)
        if args.json:
            refused = FileRefused(error=body.error, message=named, path=str(args.file))
            print(refused.model_dump_json())
        else:
            print(f"tutor sandbox run: {named}", file=sys.stderr)
        return 2

    if args.graph_png is not None and (problem := graph_png_problem(args.graph_png)):
        # refused input, as the help's "2" says (it was 1, the sandbox's failure: fresh10 #8)
        print(f"tutor sandbox run: {problem}", file=sys.stderr)
        return 2
    try:
        raw = args.file.read_bytes()
    except OSError as exc:
        return refuse(ErrorBody(error="invalid", message=f"cannot read: {exc.strerror}"))
    if len(raw) > MAX_CODE_BYTES:  # one sentence, not the protocol's "code: code is ..."
        message = (
            f"the file is {len(raw):,} bytes, over the {MAX_CODE_BYTES:,}-byte limit of a snippet"
        )
        return refuse(ErrorBody(error="too_large", message=message))
    try:
        code = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return refuse(ErrorBody(error="invalid", message=f"not UTF-8 ({not_utf8_byte(raw, exc)})"))
    try:
        request = RunRequest(code=code, graph=args.graph or args.graph_png is not None)
    except ValidationError as exc:
        return refuse(ErrorBody(error="too_large", message=first_error(exc)))

    origin = f"--backend {args.backend}" if args.backend is not None else "configuration"

    async def main() -> RunResult:
        async with Worker(
            settings, curated=CuratedSnippets(), backend_origin=origin, one_job=True
        ) as worker:
            assert worker.hello is not None
            if worker.hello.reason.startswith(CONTAINER_WALL_MISSING):
                print(f"sandbox: {worker.hello.reason}", file=sys.stderr, flush=True)
            if worker.hello.backend == "none":
                worker.curated = await asyncio.to_thread(CuratedSnippets.load, settings.content)
            return await worker.run(request)

    announce_start(sys.stderr)
    try:
        result = asyncio.run(main())
    except SandboxRejected as exc:
        return refuse(ErrorBody(error="refused", message=str(exc)))
    except SandboxError as exc:
        print(f"sandbox: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(result.model_dump_json())
    else:
        show_run(result, sys.stdout, sys.stderr)
    if args.graph_png is not None:
        return save_graph_png_status(result, args.graph_png, args.file.name, sys.stderr)
    return run_exit_status(result)


def graph_png_problem(path: Path) -> str | None:
    """Why ``--graph-png path`` cannot be written, or None when it names a new ``.png`` file
    in an existing directory.

    A missing directory is refused rather than created, so a mistyped path never scatters
    files (or directories such as ``/nonexistent/``) elsewhere, and an existing file is never
    overwritten (a tester's ``--graph-png ok.py`` turned the snippet itself into a PNG).

    Args:
        path: the PNG file asked for.

    Returns:
        One sentence naming the path and what is wrong, or None.
    """
    from bot.settings import missing_directory

    if str(path) in ("", "."):
        return "--graph-png needs a file name ending in .png"
    if path.is_dir():
        return f"--graph-png {path}: is a directory; name the PNG file to write"
    if path.suffix.lower() != ".png":
        return f"--graph-png {path}: the file name must end in .png"
    if path.exists() or path.is_symlink():
        return (
            f"--graph-png {path}: already exists; nothing is overwritten: choose a new name "
            "or delete it first"
        )
    missing = missing_directory(path)
    return f"--graph-png {path}: {missing}" if missing else None


def show_run(result: Any, out: TextIO, err: TextIO) -> None:
    """Print a run for a person: its stdout on ``out``, its stderr and a status line on ``err``.

    Control characters other than newline and tab are made visible
    (:func:`sandbox.protocol.visible_controls`: ``\\x1b`` shows as ``␛``), so a snippet cannot
    drive the terminal. Each stream is started on a fresh line when the text before it ended
    mid-line (output cut at the cap rarely ends in a newline), so the status line
    ``[stopped: printed more than 64 KiB, 39 ms, namespaces]`` is always a line of its own.

    Args:
        result: the :class:`~sandbox.protocol.RunResult`.
        out: where the snippet's stdout goes (``sys.stdout``).
        err: where its stderr and the status line go (``sys.stderr``).
    """
    from sandbox.protocol import visible_controls

    mid_line = False
    for text, stream in ((result.stdout, out), (result.stderr, err)):
        if not text:
            continue
        if mid_line:
            err.write("\n")
        stream.write(visible_controls(text))
        stream.flush()
        mid_line = not text.endswith("\n")
    if mid_line:
        err.write("\n")
    err.write(f"[{result.status}, {result.duration_ms:.0f} ms, {result.backend}]\n")
    err.flush()


def save_graph_png_status(result: Any, path: Path, title: str, err: TextIO) -> int:
    """Draw ``result.graph`` into ``path`` for ``--graph-png``, and give the command's exit
    status.

    The run's own status wins (fresh12 #7: a timed-out snippet exited 1, not 4): a snippet
    that did not end cleanly keeps its 3-10 whatever happens to the picture. No PNG is
    written when there is nothing to draw (no graph, or one without a node: an empty "0
    nodes" picture was written before), and one line on ``err`` says why.

    Args:
        result: the :class:`~sandbox.protocol.RunResult` of a run asked for its graph.
        path: the PNG file, already checked by :func:`graph_png_problem`.
        title: the picture's title (the snippet's file name).
        err: where the note goes (``sys.stderr``).

    Returns:
        :func:`run_exit_status` of ``result`` when it is not 0; else 0 when the picture was
        written, 1 when it could not be (no graph, an empty one, no renderer, a write error):
        the ``1`` of ``tutor sandbox run --help``.
    """
    from sandbox.graph_render import RendererUnavailable, save_graph_png

    status = run_exit_status(result)
    graph = result.graph
    if graph is None or graph.empty:
        why = (
            result.graph_error or "the sandbox returned none"
            if graph is None
            else "the snippet leaves no tensor with autograd history: nothing to draw"
        )
        print(f"no graph picture ({path} not written): {why}", file=err)
        return status or 1
    try:
        save_graph_png(graph, path, title=title)
    except RendererUnavailable as exc:
        print(f"{path}: {exc}", file=err)
        return status or 1
    except OSError as exc:
        print(f"{path}: cannot write the picture: {exc.strerror or exc}", file=err)
        return status or 1
    print(f"graph: {len(graph.nodes)} nodes drawn in {path}", file=err)
    return status
