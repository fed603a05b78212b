"""The warm zygote: imports torch once, then forks single-use jailed interpreters.

Run as ``python -m sandbox.zygote --ctl-fd N --jobs-fd M ...`` by
:class:`sandbox.worker.Worker`; it is the only process of the project that imports torch.
Three kinds of process take part:

* the **zygote** (root, pristine): imports and warms torch, builds the read-only jail root
  once, then only forks. It never reads a job's code or output, so no job's data is in the
  memory that later jobs are forked from.
* a **spare** (one per job, forked ahead of time): creates the job's cgroup, unshares the
  job's namespaces, forks the jailed interpreter, and waits on the job queue (a socket
  every spare shares with the worker; the kernel gives each message to one waiting
  spare, so the zygote is not on a job's path). When it takes a job socket it sets the
  job's limits, passes the code in, supervises (wall clock, output
  read in bounded chunks), kills every process of the job, and answers with a
  :class:`~sandbox.protocol.JobOutcome`.
* the **jailed interpreter** (pid 1 of the job's pid namespace): finishes the jail (fresh
  /proc, private tmpfs, pivot_root), drops to an unprivileged uid with no capabilities and
  no_new_privs, tells the spare it is ready, and blocks until the code arrives. Then it
  runs the code the way ``python -c`` would and exits.

So a job's critical path has no fork and no namespace set-up: both happened while the
previous job ran. See sandbox/README.md for measurements and trade-offs.
"""

from __future__ import annotations

import argparse
import atexit
import builtins
import contextlib
import functools
import gc
import importlib
import io
import math
import os
import resource
import selectors
import shutil
import signal
import socket
import struct
import sys
import tempfile
import threading
import time
import traceback
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from sandbox import graph_extract, hugepages, jail
from sandbox.internal import JobAnswer, JobSpec, ZygoteFailed, ZygoteHello
from sandbox.protocol import MAX_CODE_BYTES, MAX_GRAPH_BYTES, Backend, JobOutcome, Limits
from sandbox.trace import JobTrace

PRELOAD: tuple[str, ...] = (
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.optim",
    "torch.func",
    "torch.autograd",
    "torch.autograd.functional",
    "torch.autograd.forward_ad",
    "torch.autograd.gradcheck",
    "torch.utils.checkpoint",
    "torch.testing",
    "numpy",
    "collections",
    "contextlib",
    "copy",
    "dataclasses",
    "functools",
    "itertools",
    "math",
    "random",
    "subprocess",
    "traceback",
    "typing",
    "warnings",
    "weakref",
)
"""Modules snippets commonly import, loaded before any job arrives."""

JOB_ENV: dict[str, str] = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/home/sandbox",
    "TMPDIR": "/tmp",  # noqa: S108 - the job's own private tmpfs
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONDONTWRITEBYTECODE": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
}
"""A job's whole environment. The thread variables must be set before torch starts: libgomp
sizes its pool by the host's cores and crashes under a pids limit otherwise (issue 3)."""

SETUP_FAILED = 125
"""Exit status of a jailed interpreter whose jail could not be built."""

HEADER = struct.Struct("!dQ?")
"""What precedes the code on a job's code pipe: CPU seconds, code bytes, extract the graph."""

READ_CHUNK = 64 * 1024
"""Output is read from a job in chunks of at most this many bytes (never unbounded)."""

SPEC_TIMEOUT_S = 10.0
"""A spare waits at most this long for the worker to send the job after handing it over."""

REPORT_AFTER_FAILURES = 2
"""After this many spares in a row failed their set-up (and exited without a job), the next
spare forked answers a job with its set-up error if it fails too (see :func:`run_spare`)."""

READY_TIMEOUT_S = 60.0
"""A spare gives its jailed interpreter this long to finish the jail."""

NOFILE = 256
"""Open files per job process (RLIMIT_NOFILE)."""


@dataclass(slots=True)
class ZygoteConfig:
    """How the zygote builds jobs.

    Attributes:
        backend: the isolation in force.
        uid: uid/gid of jobs (namespaces backend; process backends when run as root).
        tmp_mib: size of each private tmpfs or the job directory cap, MiB.
        limits: the server's default limits, set on each spare's cgroup before a job.
        pool: spares kept ready.
        root: the jail root (namespaces backend).
    """

    backend: Backend
    uid: int
    tmp_mib: int
    limits: Limits
    pool: int
    root: jail.JailRoot | None = None


# --------------------------------------------------------------------------- zygote


def preload() -> str:
    """Import and exercise what snippets commonly use; return torch's version.

    ``torch.optim`` and ``torch.func`` import ``torch._dynamo`` on first use (about 2 s
    here), so one optimizer step and one ``torch.func.grad`` call are made now.
    """
    for name in PRELOAD:
        importlib.import_module(name)
    import torch

    torch.set_num_threads(1)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for opt in (torch.optim.SGD([x], lr=0.1), torch.optim.Adam([x], lr=0.1)):
        (x * x).sum().backward()  # type: ignore[no-untyped-call]
        opt.step()
        opt.zero_grad()
    torch.func.grad(lambda t: (t * t).sum())(torch.ones(2))
    torch.autograd.grad((x**3).sum(), x, create_graph=True)
    repr(torch.ones(2, 2) @ torch.ones(2, 2))
    graph_extract.prepare()  # the jail cannot import this project: load the extractor now
    version: str = torch.__version__
    return version.split("+")[0]


def prefault() -> None:
    """Touch, in a freshly forked interpreter, the pages a typical snippet touches.

    A fork copies the zygote's page tables for its heap but not for the files it maps (the
    kernel refaults those), and every page a job writes to (reference counts included) is
    copied on first write. Done in a spare, before its job arrives, this moves ~6 ms of a
    trivial autograd snippet's page faults off the job's critical path (measured in
    ``benchmarks/sandbox_latency.py``, "job: the code"). It runs inside the jail, as the
    job's user and charged to the job's cgroup, before the job's code is even read; it
    writes nothing and leaves no object behind (locals only, graph freed).
    """
    import torch

    x = torch.tensor([2.0, 3.0], requires_grad=True)
    y = (x * x + 1.0).sum()
    y.backward()  # type: ignore[no-untyped-call]
    _ = [repr(x), repr(x.grad), repr(y), str(y.item()), f"{x.detach().numpy()}"]
    with torch.no_grad():
        _.append(repr(x * 2))
    compile("x = 1\nprint(x)\n", "<string>", "exec")
    del x, y, _


def in_container() -> bool:
    """True inside a Docker/Podman container (their marker files)."""
    return Path("/.dockerenv").exists() or Path("/run/.containerenv").exists()


CONTAINER_WALL_MISSING: Final = "WARNING: the container's outer wall is missing"
"""How the ``container`` backend's reason starts when it was forced where the wall is missing."""


def container_wall_missing() -> list[str]:
    """What of the sandbox container's outer wall is missing here, in words (empty: none).

    The ``container`` backend relies on the container for what it does not isolate per job;
    docker-compose.yml gives the sandbox service ``network_mode: none`` (only ``lo``) and
    ``read_only: true``. Any container (a dev machine's, a CI runner's) has the marker files
    that :func:`in_container` looks for, but not necessarily this wall.
    """
    missing = []
    if not os.statvfs("/").f_flag & os.ST_RDONLY:
        missing.append("the root filesystem is writable")
    interfaces = sorted(name for _, name in socket.if_nameindex() if name != "lo")
    if interfaces:
        missing.append(f"network interfaces are present ({', '.join(interfaces)})")
    return missing


def namespaces_unavailable() -> str | None:
    """None when the namespaces backend can work here, else why not, in words."""
    if os.geteuid() != 0:
        return "not running as root (per-job namespaces and cgroups need root)"
    why = jail.JobCgroup.available()
    if why:
        return why
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            jail.unshare(jail.JOB_NAMESPACES)
        except OSError as exc:
            code = exc.errno or 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        return f"unshare of the job namespaces failed: {os.strerror(code)}"
    return None


ISOLATION: dict[Backend, tuple[list[str], list[str]]] = {
    "namespaces": (
        [
            "network namespace with no interface up (not even loopback)",
            "pid, mount, ipc and uts namespaces per job",
            "read-only system; only the Python install and site-packages are visible",
            "private size-capped tmpfs for /tmp, the working dir and /dev/shm",
            "cgroup memory limit per job with swap 0, and a pids limit per job",
            "unprivileged uid, empty capability bounding set, no_new_privs",
            "wall-clock and CPU-time limits, output cap, cleared environment",
        ],
        [
            "no seccomp filter: the whole syscall surface of the kernel is reachable",
            "CPU is shared with other jobs and the host (no cpu quota per job)",
        ],
    ),
    "container": (
        [
            "the container: no network, read-only root, capped memory and pids (compose)",
            "per job: own process group and session, every descendant killed at the end",
            "per job: private directory (removed after), cleared environment",
            "per job: RLIMIT_CPU, RLIMIT_DATA, RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_NPROC",
            "wall-clock limit, output cap, no_new_privs",
        ],
        [
            "jobs share one uid: a job can signal or read files of a concurrent job",
            "memory is limited per process (RLIMIT_DATA), not per job",
            "the worker's Unix socket is reachable from jobs",
            "no seccomp filter beyond the container runtime's",
        ],
    ),
    "none": (
        [
            "only curated snippets of the question bank run (learner code is refused)",
            "per job: process group, private directory, rlimits, wall-clock limit",
        ],
        ["no namespace, cgroup or uid isolation"],
    ),
}
"""What each backend isolates and what it does not, in words for /health and startup."""


def choose_backend(requested: str, origin: str = "configuration") -> tuple[Backend, str]:
    """Pick the backend for ``requested`` (``auto`` or a name) and say why.

    ``origin`` names what asked for it (``--backend none``, or ``configuration`` for the
    environment), for the reason given when isolation was turned off on purpose.

    Raises:
        SystemExit: ``namespaces`` was requested but cannot work here.
    """
    why = None
    if requested in ("auto", "namespaces"):
        why = namespaces_unavailable()
        if why is None:
            return "namespaces", "per-job namespaces and cgroups are available"
        if requested == "namespaces":
            raise SystemExit(f"sandbox: the namespaces backend was requested but {why}")
    if requested == "container" or (requested == "auto" and in_container()):
        note = f" (no namespaces: {why})" if why else ""
        missing = container_wall_missing()
        if not missing:
            return "container", "running inside a container, which is the outer wall" + note
        if requested == "auto":
            return "none", (
                f"a container without the sandbox's outer wall ({'; '.join(missing)})" + note
            )
        return "container", (
            f"{CONTAINER_WALL_MISSING} ({'; '.join(missing)}): the container backend was "
            "forced; jobs can reach the network and write outside their directory" + note
        )
    if requested == "none":
        return "none", f"isolation was turned off by {origin}"
    return "none", f"no isolation is available here: {why}"


@dataclass(slots=True)
class _SpareHandle:
    pid: int
    sock: socket.socket
    ready: bool = False
    failed: bool = False  # said "F": its exit is not counted as a second failure


@dataclass
class Zygote:
    """The fork server loop: keeps ``cfg.pool`` spares ready; they take jobs themselves.

    Args:
        ctl: SOCK_SEQPACKET socket to the worker: the greeting, then only its end of file
            (stop).
        cfg: how to build jobs.
        jobs: the job queue, SOCK_SEQPACKET: each ``run`` message from the worker carries
            one job socket's fd. The zygote never reads it; every spare inherits it and
            waits on it once ready, so a job goes from the worker straight to an idle
            spare even while the zygote is busy forking.
    """

    ctl: socket.socket
    cfg: ZygoteConfig
    jobs: socket.socket
    spares: list[_SpareHandle] = field(default_factory=list)
    seq: int = 0
    failures: int = 0
    next_fork_at: float = 0.0
    sel: selectors.BaseSelector = field(default_factory=selectors.DefaultSelector)
    busy: dict[int, socket.socket] = field(default_factory=dict)

    def serve(self) -> None:
        """Serve until the worker closes the control socket."""
        sel = self.sel
        wake_r, wake_w = socket.socketpair()
        wake_r.setblocking(False)
        wake_w.setblocking(False)
        signal.set_wakeup_fd(wake_w.fileno())
        signal.signal(signal.SIGCHLD, lambda *_: None)
        sel.register(self.ctl, selectors.EVENT_READ, "ctl")
        sel.register(wake_r, selectors.EVENT_READ, "wake")
        while True:
            self._fill()
            for key, _ in sel.select(timeout=1.0):
                if key.data == "ctl":
                    if not self._on_ctl():
                        self._shutdown()
                        return
                elif key.data == "wake":
                    with contextlib.suppress(BlockingIOError):
                        wake_r.recv(4096)
                else:
                    self._on_spare(key.data)
            self._reap()

    def _on_ctl(self) -> bool:
        try:
            msg, fds, _, _ = socket.recv_fds(self.ctl, 64, 4)
        except ConnectionError:
            return False
        for fd in fds:  # jobs come on the job queue, never here
            os.close(fd)
        return bool(msg)

    def _on_spare(self, spare: _SpareHandle) -> None:
        if spare not in self.spares:
            return  # handed a job earlier in this same batch of events
        try:
            msg = spare.sock.recv(4096)
        except OSError:
            msg = b""
        if msg == b"R":
            spare.ready = True
            self.failures = 0
            return
        if msg == b"J":  # it took a job from the queue
            self.spares.remove(spare)
            self.sel.unregister(spare.sock)
            # Keep our end open until the spare exits (it is reaped in _reap).
            self.busy[spare.pid] = spare.sock
            return
        if msg.startswith(b"F"):
            print(
                f"sandbox: spare set-up failed: {msg[1:].decode(errors='replace')}", file=sys.stderr
            )
            spare.failed = True
            self.failures += 1
            return
        self.spares.remove(spare)
        self.sel.unregister(spare.sock)
        spare.sock.close()
        if not spare.failed:  # died before saying ready
            self.failures += 1

    def _fill(self) -> None:
        """Fork spares up to the pool size, but not while a job runs and one spare is idle.

        Forking a spare costs tens of ms of CPU; on 2 cores that would slow the running
        job, so a used spare is replaced when its job ends, unless none is left idle.
        """
        while (
            len(self.spares) < self.cfg.pool
            and (not self.spares or len(self.spares) + len(self.busy) < self.cfg.pool)
            and time.monotonic() >= self.next_fork_at
        ):
            self._fork_spare()
            if self.failures >= 3:
                self.next_fork_at = time.monotonic() + 1.0

    def _fork_spare(self) -> _SpareHandle:
        self.seq += 1
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        name = f"{os.getpid()}-{self.seq}"
        pid = os.fork()
        if pid == 0:  # the spare
            status = 1
            try:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                keep = sorted({theirs.fileno(), self.jobs.fileno()})
                for low, high in zip([2, *keep], [*keep, 65536], strict=True):
                    os.closerange(low + 1, high)
                report = self.failures >= REPORT_AFTER_FAILURES
                status = run_spare(theirs, self.jobs, self.cfg, name, report_failure=report)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(status)
        theirs.close()
        handle = _SpareHandle(pid, mine)
        self.spares.append(handle)
        self.sel.register(mine, selectors.EVENT_READ, handle)
        return handle

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            sock = self.busy.pop(pid, None)
            if sock is None:  # it took a job and ended before its "J" was read, or died idle
                sock = self._forget(pid)
            if sock is not None:
                sock.close()
            if status != 0:
                print(f"sandbox: spare {pid} ended badly: {_wait_words(status)}", file=sys.stderr)

    def _forget(self, pid: int) -> socket.socket | None:
        """Drop an ended spare from the idle pool; its socket, if it was there."""
        for spare in self.spares:
            if spare.pid == pid:
                self.spares.remove(spare)
                self.sel.unregister(spare.sock)
                return spare.sock
        return None

    def _shutdown(self) -> None:
        for spare in self.spares:
            spare.sock.close()
        for sock in self.busy.values():
            sock.close()
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                time.sleep(0.01)


# --------------------------------------------------------------------------- spare


def run_spare(
    sock: socket.socket,
    jobs: socket.socket,
    cfg: ZygoteConfig,
    name: str,
    *,
    report_failure: bool = True,
) -> int:
    """A spare's whole life: prepare a jailed interpreter, wait for a job, run it, answer.

    A spare whose set-up failed says why (``F``) and, unless ``report_failure``, exits
    without taking a job, so a one-off failure (a cgroup or mount race) costs a job
    nothing: the zygote forks another spare. The zygote sets ``report_failure`` once
    :data:`REPORT_AFTER_FAILURES` spares in a row have failed: the next spare takes the next
    job and answers it with the set-up error, so a failure that repeats reaches the learner
    instead of leaving jobs waiting for a spare that never becomes ready.

    Args:
        sock: this spare's end of its socket to the zygote: ``R`` when ready (or ``F`` and
            why), ``J`` once it took a job; its end of file from the zygote means stop.
        jobs: the job queue shared with the worker and the other spares (see
            :class:`Zygote`); one message carries one job socket's fd.
        cfg: how to build the job.
        name: unique name (zygote pid and sequence), used for the cgroup.
        report_failure: on a failed set-up, take a job anyway and answer it with the error.

    Returns:
        The spare's exit status (0 normally, also after a set-up failure it said).
    """
    spare = Spare(cfg, name)
    setup_error: str | None = None
    try:
        spare.prepare()
        with contextlib.suppress(OSError):  # the zygote may already have handed us a job
            sock.send(b"R")
    except Exception as exc:
        setup_error = f"sandbox set-up failed: {exc}"
        with contextlib.suppress(OSError):
            sock.send(b"F" + setup_error.encode()[:4000])
        if not report_failure:
            spare.cleanup()
            return 0
    job_fd = take_job(sock, jobs)
    if job_fd is None:
        spare.cleanup()
        return 0
    spare.trace.mark("handed")
    with contextlib.suppress(OSError):
        sock.send(b"J")
    job = socket.socket(fileno=job_fd)
    try:
        spec = read_spec(job)
        spare.trace.mark("spec")
        answer = (
            spare.run(spec)
            if setup_error is None
            else JobAnswer(outcome=JobOutcome(error=setup_error))
        )
    except Exception as exc:
        spare.cleanup()
        outcome = JobOutcome(error=f"worker failure: {type(exc).__name__}: {exc}")
        answer = JobAnswer(outcome=outcome)
    answer = answer.model_copy(update={"hops": spare.trace.hops})
    # Every process of the job is dead by now (run() killed and reaped them); removing the
    # cgroup and closing pipes can wait until the answer is on its way.
    with contextlib.suppress(OSError):
        job.settimeout(SPEC_TIMEOUT_S)
        job.sendall(answer.model_dump_json().encode())
        job.shutdown(socket.SHUT_WR)
    job.close()
    spare.cleanup()
    return 0


def take_job(sock: socket.socket, jobs: socket.socket) -> int | None:
    """Wait for a job on the shared queue; None once the zygote closed ``sock`` (stop).

    Several spares wait on ``jobs`` at once; each message goes to one of them, and a spare
    woken for a message another one took goes back to waiting.

    Returns:
        The job socket's fd, owned by the caller.
    """
    with selectors.DefaultSelector() as sel:
        sel.register(sock, selectors.EVENT_READ, "zygote")
        sel.register(jobs, selectors.EVENT_READ, "jobs")
        while True:
            for key, _ in sel.select():
                if key.data == "zygote":
                    return None  # the zygote sends nothing else: end of file or an error
                try:
                    _, fds, _, _ = socket.recv_fds(jobs, 64, 1, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    continue  # another spare took it
                except OSError:
                    return None
                if not fds:
                    return None  # the worker closed the queue
                for extra in fds[1:]:
                    os.close(extra)
                return fds[0]


def read_spec(job: socket.socket) -> JobSpec:
    """Read one JSON line holding a :class:`JobSpec` (bounded; 10 s at most).

    Raises:
        ValueError: the line is too long, missing, or not a valid spec.
    """
    job.settimeout(SPEC_TIMEOUT_S)
    limit = 6 * MAX_CODE_BYTES + 4096
    data = bytearray()
    while b"\n" not in data:
        chunk = job.recv(READ_CHUNK)
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            raise ValueError("job spec too long")
    line = bytes(data).split(b"\n", 1)[0]
    return JobSpec.model_validate_json(line)


class Spare:
    """One job's supervisor (runs as root, outside the jail) and its jailed interpreter.

    Args:
        cfg: how to build the job.
        name: unique name for the job's cgroup.
    """

    def __init__(self, cfg: ZygoteConfig, name: str) -> None:
        self.cfg = cfg
        self.namespaces = cfg.backend == "namespaces"
        self.cgroup = jail.JobCgroup(name) if self.namespaces else None
        self.workdir: Path | None = None
        self.pid: int | None = None
        self.pidfd: int | None = None
        self.code_w = self.out_r = self.err_r = self.graph_r = self.state_r = -1
        self.trace = JobTrace()
        self.mount_ns = -1

    # -- before the job

    def prepare(self) -> None:
        """Build the jail and start the jailed interpreter; return once it is ready.

        Raises:
            RuntimeError: the jailed interpreter could not finish its jail (with its words).
            OSError: a namespace, cgroup or pipe operation failed.
        """
        code_r, self.code_w = os.pipe()
        self.out_r, out_w = os.pipe()
        self.err_r, err_w = os.pipe()
        self.state_r, state_w = os.pipe()
        self.graph_r, graph_w = os.pipe()
        if self.cgroup is not None:
            limits = self.cfg.limits
            self.cgroup.create(limits.memory_mib * 1024 * 1024, limits.pids)
            jail.unshare(jail.JOB_NAMESPACES)
        else:
            jail.prctl(jail.PR_SET_CHILD_SUBREAPER, 1)
            self.workdir = Path(tempfile.mkdtemp(prefix="tutor-job-"))
            (self.workdir / "tmp").mkdir()
            if os.geteuid() == 0:
                for path in (self.workdir, self.workdir / "tmp"):
                    os.chown(path, self.cfg.uid, self.cfg.uid)
        pid = os.fork()
        if pid == 0:
            try:
                for fd in (self.code_w, self.out_r, self.err_r, self.state_r, self.graph_r):
                    os.close(fd)
                jailed_interpreter(
                    self.cfg, self.cgroup, self.workdir, code_r, out_w, err_w, state_w, graph_w
                )
            finally:
                os._exit(SETUP_FAILED)
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)
        for fd in (code_r, out_w, err_w, state_w, graph_w):
            os.close(fd)
        ready = _read_with_timeout(self.state_r, 1, READY_TIMEOUT_S)
        if ready == b"1" and self.namespaces:
            # Hold the job's mount namespace, so its teardown (unmounting the jail's binds
            # and tmpfs) happens in cleanup(), after the answer, and not in the job's exit
            # on the critical path. No process is left in it; only this fd reaches it.
            self.mount_ns = os.open(f"/proc/{pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
        if ready != b"1":
            self.kill()
            reason = _read_with_timeout(self.err_r, 4096, 1.0).decode(errors="replace").strip()
            raise RuntimeError(reason or "the jailed interpreter exited before it was ready")

    # -- the job

    def run(self, spec: JobSpec) -> JobAnswer:
        """Run the job's code in the ready interpreter under ``spec.limits``.

        With ``spec.graph`` the interpreter writes the graph as JSON on its graph pipe after
        the code; at most :data:`~sandbox.protocol.MAX_GRAPH_BYTES` of it are read (more
        closes the pipe: the job goes on, the graph is refused).

        Returns:
            What happened, and the graph text when asked; every process of the job is dead
            when this returns.
        """
        assert self.pid is not None
        assert self.pidfd is not None
        limits = spec.limits
        if self.cgroup is not None:
            self.cgroup.set_limits(limits.memory_mib * 1024 * 1024, limits.pids)
        code = spec.code.encode("utf-8", "surrogatepass")
        payload = HEADER.pack(limits.cpu_s, len(code), spec.graph) + code
        start = time.monotonic()
        self.trace.mark("code_in", start)
        deadline = start + limits.wall_s
        with contextlib.suppress(BrokenPipeError):  # it died; its status says why
            _write_all(self.code_w, payload)
        os.close(self.code_w)
        self.code_w = -1

        cap = limits.output_bytes
        bufs = {self.out_r: bytearray(), self.err_r: bytearray()}
        sel = selectors.DefaultSelector()
        for fd in bufs:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        sel.register(self.pidfd, selectors.EVENT_READ)
        graph = _GraphReader(self.graph_r, sel) if spec.graph else None
        timed_out = truncated = exited = False
        while not exited:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            for key, _ in sel.select(remaining):
                if key.fd == self.pidfd:
                    exited = True
                elif graph is not None and key.fd == graph.fd:
                    if not graph.read():
                        self._close_graph()
                elif not self._read_into(key.fd, bufs[key.fd], cap, sel):
                    truncated = True
            if truncated:
                break
        end = time.monotonic()
        self.trace.mark("exited", end)
        if not exited:
            self.kill()
        _, status, usage = os.wait4(self.pid, 0)
        self.pid = None
        self.trace.mark("reaped")
        self.kill_rest()
        self.trace.mark("emptied")
        # Every writer is dead now: drain what is left in the pipes, still bounded.
        drain_until = time.monotonic() + 1.0
        while sel.get_map() and len(sel.get_map()) > 1 and time.monotonic() < drain_until:
            for key, _ in sel.select(0.1):
                if graph is not None and key.fd == graph.fd:
                    if not graph.read():
                        self._close_graph()
                elif key.fd != self.pidfd and not self._read_into(key.fd, bufs[key.fd], cap, sel):
                    truncated = True
        sel.close()
        stats = self.cgroup.stats() if self.cgroup is not None else None
        signum = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        # Stopped by _stop_at_file_limit: reported as the signal it stands for. The status
        # alone is not enough: a snippet may exit 153 itself (sys.exit, os._exit).
        file_limit = (
            os.WIFEXITED(status)
            and os.WEXITSTATUS(status) == EXIT_FILE_LIMIT
            and self._state() == STATE_FILE_LIMIT
        )
        if file_limit:
            signum = signal.SIGXFSZ
        cpu_used = usage.ru_utime + usage.ru_stime
        memory_exceeded = bool(stats and stats.oom_kills)
        cpu_exceeded = signum == signal.SIGXCPU or (
            signum == signal.SIGKILL
            and not (timed_out or truncated or memory_exceeded)
            and cpu_used >= limits.cpu_s
        )
        outcome = JobOutcome(
            stdout=bytes(bufs[self.out_r][:cap]).decode("utf-8", "replace"),
            stderr=bytes(bufs[self.err_r][:cap]).decode("utf-8", "replace"),
            exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) and not file_limit else None,
            signal=None if (timed_out or truncated) and signum == signal.SIGKILL else signum,
            timed_out=timed_out,
            memory_exceeded=memory_exceeded,
            cpu_exceeded=cpu_exceeded,
            file_limit_mib=self.cfg.tmp_mib if signum == signal.SIGXFSZ else None,
            pids_exceeded=bool(stats and stats.pids_max_hits),
            output_truncated=truncated,
            duration_ms=round((end - start) * 1000, 3),
            peak_memory_bytes=stats.peak_bytes if stats else None,
        )
        self.trace.mark("drained")
        if graph is None:
            return JobAnswer(outcome=outcome)
        return graph.answer(outcome)

    def _state(self) -> bytes:
        """What the (dead) job last wrote to its state pipe after "ready": at most one
        byte, :data:`STATE_FILE_LIMIT` or nothing (b"")."""
        os.set_blocking(self.state_r, False)
        try:
            return os.read(self.state_r, 1)
        except BlockingIOError:
            return b""

    def _close_graph(self) -> None:
        """Close the graph pipe past its cap: a job still writing gets EPIPE, not a hang."""
        if self.graph_r >= 0:
            os.close(self.graph_r)
            self.graph_r = -1

    def _read_into(self, fd: int, buf: bytearray, cap: int, sel: selectors.BaseSelector) -> bool:
        """Read one chunk; False when the stream went past ``cap`` (the job is then killed)."""
        try:
            chunk = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return True
        if not chunk:
            sel.unregister(fd)
            return True
        room = cap + 1 - len(buf)
        if room > 0:
            buf += chunk[:room]
        if len(buf) > cap:
            self.kill()
            return False
        return True

    # -- killing and cleaning up

    def kill(self) -> None:
        """SIGKILL the jailed interpreter; under namespaces that ends its whole pid namespace.

        Without namespaces its process group goes too; descendants that left the group are
        found by :meth:`kill_rest` once the interpreter has been reaped.
        """
        if self.pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        if not self.namespaces:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)

    def kill_rest(self) -> None:
        """Kill every other process the job started (cgroup, or descendants via subreaper)."""
        if self.cgroup is not None:
            self.cgroup.kill_all()
            return
        for _ in range(1000):
            children = _descendants(os.getpid())
            if self.pid is not None:
                children = [c for c in children if c != self.pid]
            if not children:
                return
            for pid in children:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.002)
            _reap_others(self.pid)

    def cleanup(self) -> None:
        """Kill what is left, close pipes, remove the cgroup or job directory.

        Closing the held mount namespace frees the job's private tmpfs (/tmp, working dir,
        /dev/shm) here, after the answer: no process of the job is alive by then.
        """
        self.kill()
        if self.pid is not None:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None
        self.kill_rest()
        fds = (
            self.code_w,
            self.out_r,
            self.err_r,
            self.pidfd,
            self.graph_r,
            self.state_r,
            self.mount_ns,
        )
        for fd in fds:
            if fd is not None and fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        if self.cgroup is not None:
            self.cgroup.kill_all()
            self.cgroup.remove()
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)


class _GraphReader:
    """Reads a job's graph pipe in bounded chunks; past the cap it stops and closes its end.

    Args:
        fd: the pipe's read end (registered with ``sel`` here).
        sel: the supervisor's selector.
    """

    def __init__(self, fd: int, sel: selectors.BaseSelector) -> None:
        self.fd = fd
        self.sel = sel
        self.data = bytearray()
        self.overflow = False
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)

    def read(self) -> bool:
        """Read one chunk; at end of file or past the cap, stop watching the pipe.

        Returns:
            False once the job wrote more than the cap (the caller closes the pipe).
        """
        try:
            chunk = os.read(self.fd, READ_CHUNK)
        except BlockingIOError:
            return True
        except OSError:
            chunk = b""
        self.data += chunk[: MAX_GRAPH_BYTES + 1 - len(self.data)]
        if not chunk or len(self.data) > MAX_GRAPH_BYTES:
            self.overflow = len(self.data) > MAX_GRAPH_BYTES
            self.sel.unregister(self.fd)
        return not self.overflow

    def answer(self, outcome: JobOutcome) -> JobAnswer:
        """The spare's answer with the graph text, or why there is none."""
        if self.overflow:
            problem = f"the job wrote more than {MAX_GRAPH_BYTES:,} bytes of graph"
            return JobAnswer(outcome=outcome, graph_problem=problem)
        if not self.data:
            problem = "the snippet ended before its graph was written"
            return JobAnswer(outcome=outcome, graph_problem=problem)
        try:
            text = bytes(self.data).decode("utf-8")
        except UnicodeDecodeError as exc:
            problem = f"the job's graph is not UTF-8 (byte {exc.start})"
            return JobAnswer(outcome=outcome, graph_problem=problem)
        return JobAnswer(outcome=outcome, graph_text=text)


def _wait_words(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit {os.waitstatus_to_exitcode(status)}"


def _descendants(root: int) -> list[int]:
    out: list[int] = []
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{tid}/children") as f:
                kids = [int(k) for k in f.read().split()]
                out.extend(kids)
                todo.extend(kids)
    return out


def _reap_others(keep: int | None) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0 or pid == keep:
            return


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_with_timeout(fd: int, size: int, timeout_s: float) -> bytes:
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        if not sel.select(timeout_s):
            return b""
    try:
        return os.read(fd, size)
    except BlockingIOError:
        return b""


def _read_exact(fd: int, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = os.read(fd, min(READ_CHUNK, size - len(data)))
        if not chunk:
            break
        data += chunk
    return bytes(data)


# --------------------------------------------------------------------------- the job


def jailed_interpreter(
    cfg: ZygoteConfig,
    cgroup: jail.JobCgroup | None,
    workdir: Path | None,
    code_r: int,
    out_w: int,
    err_w: int,
    state_w: int,
    graph_w: int,
) -> None:
    """Finish the jail, drop privileges, signal ready, then run the code when it arrives.

    ``state_w`` (the state pipe) gets ``b"1"`` once the jail is ready, and stays open for
    the code's run: the SIGXFSZ handler writes :data:`STATE_FILE_LIMIT` there before it
    exits. ``graph_w`` (the graph pipe) is moved to :data:`~sandbox.graph_extract.GRAPH_FD` when
    the job asks for its graph, and closed before the code runs otherwise.

    Never returns: exits with the code's status, or :data:`SETUP_FAILED` after writing
    why to ``err_w`` when the jail cannot be built.
    """
    try:
        if cgroup is not None:
            assert cfg.root is not None
            jail.prctl(jail.PR_SET_PDEATHSIG, signal.SIGKILL)
            os.setsid()  # kill(0, ...) must not reach other jobs' interpreters (same uid)
            cgroup.join()
            jail.enter_jail(cfg.root, cfg.uid, cfg.tmp_mib)
            env = dict(JOB_ENV)
        else:
            assert workdir is not None
            os.setsid()
            os.chdir(workdir)
            env = dict(JOB_ENV, HOME=str(workdir), TMPDIR=str(workdir / "tmp"))
            _process_rlimits(cfg)
        _common_rlimits(cfg)
        jail.drop_privileges(cfg.uid)
        # Changing credentials clears the parent-death signal (prctl(2), PR_SET_PDEATHSIG):
        # set it again, so a job whose spare is killed (a worker stopped mid-job: Ctrl-C in
        # `tutor sandbox run`) ends with it, not at its own end, unwatched (fresh7 #7).
        jail.prctl(jail.PR_SET_PDEATHSIG, signal.SIGKILL)
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        keep = sorted({0, 1, 2, code_r, state_w, graph_w})
        for low, high in zip(keep, [*keep[1:], 65536], strict=True):
            os.closerange(low + 1, high)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.write(err_w, f"{type(exc).__name__}: {exc}".encode())
        os._exit(SETUP_FAILED)
    with contextlib.suppress(Exception):  # a slower first job, never a failed one
        prefault()
    os.write(state_w, b"1")
    header = _read_exact(code_r, HEADER.size)
    if len(header) < HEADER.size:
        os._exit(SETUP_FAILED)
    cpu_s, size, graph = HEADER.unpack(header)
    if size > MAX_CODE_BYTES:
        os._exit(SETUP_FAILED)
    code = _read_exact(code_r, size)
    os.close(code_r)
    graph_fd: int | None = None
    if graph:
        graph_fd = graph_extract.GRAPH_FD
        if graph_w != graph_fd:
            os.dup2(graph_w, graph_fd)
    if graph_w != graph_fd:
        os.close(graph_w)
    os._exit(run_code(code.decode("utf-8", "surrogatepass"), cpu_s, env, graph_fd, state_w))


def _common_rlimits(cfg: ZygoteConfig) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))
    size = cfg.tmp_mib * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def _process_rlimits(cfg: ZygoteConfig) -> None:
    """Per-process limits standing in for cgroups where there are none (container, none).

    RLIMIT_DATA counts the private memory the process already has (torch, inherited from
    the zygote), so the limit is that plus the job's budget. RLIMIT_AS is not used: it
    breaks ``import torch``, which reserves large virtual ranges (issue 3).
    """
    budget = cfg.limits.memory_mib * 1024 * 1024
    data = _vm_data_bytes() + budget
    resource.setrlimit(resource.RLIMIT_DATA, (data, data))
    if os.geteuid() != 0:
        # RLIMIT_NPROC counts every process of the uid on the host, so allow what the uid
        # already runs plus the job's share.
        running = _processes_of(os.getuid())
        nproc = running + cfg.limits.pids
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def _vm_data_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmData:"):
            return int(line.split()[1]) * 1024
    return 0


def _processes_of(uid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry}/task"))
    return count


def run_code(
    source: str,
    cpu_s: float,
    env: dict[str, str],
    graph_fd: int | None = None,
    state_fd: int | None = None,
) -> int:
    """Run ``source`` as ``python -c`` would, in this (jailed) process; return the status.

    The CPU limit is set now, on top of what the interpreter used so far; RLIMIT_CPU has a
    one-second granularity, so the limit is rounded up to whole seconds.

    With ``graph_fd``, the roots of the code's backward calls are recorded while it runs
    (:func:`sandbox.graph_extract.start_recording`), and once the code has finished (also by
    an exception or ``sys.exit``) and before its threads are joined, the autograd graph it
    left in its globals and those roots is written there as JSON
    (:func:`sandbox.graph_extract.send_graph`); the code's own output and status are not
    touched.

    A write past RLIMIT_FSIZE ends the run with :data:`EXIT_FILE_LIMIT`, after writing
    :data:`STATE_FILE_LIMIT` to ``state_fd`` (the state pipe), so the supervisor can tell it
    from the code's own ``sys.exit(153)``.
    """
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + cpu_s)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
    os.environ.clear()
    os.environ.update(env)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, functools.partial(_stop_at_file_limit, state_fd))
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(
        io.FileIO(1, "w", closefd=False),
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
    )
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False),
        encoding="utf-8",
        errors="backslashreplace",
        line_buffering=True,
    )
    sys.argv = ["-c"]
    sys.dont_write_bytecode = True
    atexit._clear()
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main
    status = 0
    if graph_fd is not None:
        try:  # noqa: SIM105 - as after the code: plain try/except, no helper calls
            graph_extract.start_recording()  # the roots of its backward() calls
        except BaseException:  # noqa: S110 - without them the picture has only globals
            pass
    try:
        exec(compile(source, "<string>", "exec"), main.__dict__)  # noqa: S102 - the job
    except SystemExit as exc:
        status = _exit_status(exc)
    except BaseException as exc:
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
            tb = tb.tb_next
        traceback.print_exception(type(exc), exc, tb)
        status = 1
    if graph_fd is not None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        try:  # noqa: SIM105 - contextlib.suppress calls issubclass, which a job may replace
            graph_extract.send_graph(main.__dict__, source, graph_fd)
        except BaseException:  # noqa: S110 - a broken extraction must not change the run
            pass
    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]  # join non-daemon threads
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    return status


EXIT_FILE_LIMIT: Final = 128 + signal.SIGXFSZ
"""The job's exit status after it wrote past RLIMIT_FSIZE (153, the shell's code for "killed
by SIGXFSZ"). The supervisor reports it as that signal with the limit named
(:attr:`JobOutcome.file_limit_mib`) only when the job's state pipe also says
:data:`STATE_FILE_LIMIT`: a snippet's own ``sys.exit(153)`` or ``os._exit(153)`` reads as
``exit 153``."""

STATE_FILE_LIMIT: Final = b"F"
"""What the SIGXFSZ handler writes to the job's state pipe before it exits."""


def _stop_at_file_limit(state_fd: int | None, signum: int, frame: object) -> None:
    """SIGXFSZ handler of a job: stop it as the signal's default action would.

    Python ignores SIGXFSZ (a write past the limit only raises ``[Errno 27] File too
    large``), and the job is its pid namespace's init, for which the kernel drops a signal
    left at its default action; so the job records :data:`STATE_FILE_LIMIT` on its state
    pipe (``state_fd``) and exits with :data:`EXIT_FILE_LIMIT` instead, after flushing what
    it printed. A snippet could write that byte itself: it would only misname its own end.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    if state_fd is not None:
        try:  # noqa: SIM105 - contextlib.suppress calls issubclass, which a job may replace
            os.write(state_fd, STATE_FILE_LIMIT)
        except OSError:
            pass
    os._exit(EXIT_FILE_LIMIT)


def _exit_status(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(BaseException):
        print(code, file=sys.stderr)
    return 1


# --------------------------------------------------------------------------- entry


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m sandbox.zygote``; see :class:`sandbox.worker.Worker`."""
    parser = argparse.ArgumentParser(prog="python -m sandbox.zygote")
    parser.add_argument("--ctl-fd", type=int, required=True)
    parser.add_argument("--jobs-fd", type=int, required=True)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--backend-origin", default="configuration")
    parser.add_argument("--uid", type=int, default=65534)
    parser.add_argument("--tmp-mib", type=int, default=16)
    parser.add_argument("--pool", type=int, default=2)
    parser.add_argument(
        "--no-collapse",
        action="store_true",
        help="leave the heap on 4 KiB pages (one job: the ~1 s collapse would not pay off)",
    )
    parser.add_argument("--limits", required=True, help="Limits as JSON")
    parser.add_argument(
        "--jail-parent",
        type=Path,
        default=Path(tempfile.gettempdir()),
        help="directory the jail root's (empty) directory is made in",
    )
    args = parser.parse_args(argv)
    ctl = socket.socket(fileno=args.ctl_fd)
    jobs = socket.socket(fileno=args.jobs_fd)
    jail.prctl(jail.PR_SET_PDEATHSIG, signal.SIGKILL)
    started = time.monotonic()
    cfg: ZygoteConfig | None = None
    try:
        cfg, hello = start_up(args, started)
        gc.collect()
        gc.freeze()  # forked jobs then do not copy every object's page when the GC runs
        heap = (  # ~10x cheaper forks and exits, for ~1 s now
            "" if args.no_collapse else _describe_collapse(hugepages.collapse_heap())
        )
        ctl.send(hello.model_copy(update={"heap": heap}).model_dump_json().encode())
        Zygote(ctl, cfg, jobs).serve()
    except (Exception, SystemExit) as exc:
        if cfg is None:  # not started: tell the worker why before exiting
            with contextlib.suppress(OSError):
                ctl.send(ZygoteFailed(error=_failure_words(exc)).model_dump_json().encode())
        raise
    finally:
        if cfg is not None and cfg.root is not None:
            with contextlib.suppress(OSError):
                jail.umount(cfg.root.path)
                cfg.root.path.rmdir()
    return 0


def start_up(args: argparse.Namespace, started: float) -> tuple[ZygoteConfig, ZygoteHello]:
    """Load torch, choose the backend, build the jail root; return the config and greeting.

    Raises:
        SystemExit: a forced ``namespaces`` backend cannot work here, or the jail root
            could not be built (the message says why).
    """
    torch_version = preload()
    backend, reason = choose_backend(args.backend, args.backend_origin)
    cfg = ZygoteConfig(
        backend=backend,
        uid=args.uid,
        tmp_mib=args.tmp_mib,
        limits=Limits.model_validate_json(args.limits),
        pool=args.pool,
    )
    if backend == "namespaces":
        jail.JobCgroup.sweep_stale()
        jail.sweep_stale_jail_roots(args.jail_parent)
        visible = [Path(sys.base_prefix), Path(sys.prefix), *map(Path, sys.path[1:])]
        visible = [p for p in visible if "site-packages" in p.parts or p in _prefixes()]
        try:
            cfg.root = jail.build_jail_root(visible, args.uid, args.jail_parent)
        except OSError as exc:
            raise SystemExit(
                f"sandbox: the jail root could not be built in {args.jail_parent}: {exc}"
            ) from exc
    isolated, not_isolated = ISOLATION[backend]
    if reason.startswith(CONTAINER_WALL_MISSING):
        not_isolated = [*not_isolated, *(f"no outer wall: {m}" for m in container_wall_missing())]
    hello = ZygoteHello(
        pid=os.getpid(),
        torch_version=torch_version,
        backend=backend,
        reason=reason,
        isolated=isolated,
        not_isolated=not_isolated,
        startup_s=round(time.monotonic() - started, 3),
    )
    return cfg, hello


def _describe_collapse(collapse: hugepages.Collapse) -> str:
    """One line: how much of the heap is on huge pages (for the service's banner)."""
    words = (
        f"zygote heap on huge pages: {collapse.huge_bytes >> 20} MiB "
        f"({collapse.collapsed} of {collapse.regions} regions, {collapse.seconds:.2f} s)"
    )
    if collapse.error:
        words += f"; not collapsed: {collapse.error} (forks and exits cost more)"
    return words


def _failure_words(exc: BaseException) -> str:
    """One line saying why the zygote could not start (for the worker's error)."""
    words = str(exc.code) if isinstance(exc, SystemExit) else f"{type(exc).__name__}: {exc}"
    return words.removeprefix("sandbox: ")[:2000]


def _prefixes() -> set[Path]:
    return {Path(sys.base_prefix), Path(sys.prefix)}


if __name__ == "__main__":
    raise SystemExit(main())
