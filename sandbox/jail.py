"""Linux isolation primitives: namespaces, mounts, pivot_root, prctl, cgroups (v1 and v2).

Python 3.11 has no ``os.unshare``; these are thin ctypes calls into libc, each raising
``OSError`` with the errno and the call named. Nothing here imports torch; the zygote
composes these into a jail (see sandbox/README.md for the design).

Numbers come from the Linux UAPI headers (``<sched.h>``, ``<sys/mount.h>``,
``<linux/prctl.h>``) and are the same on every architecture we run on (x86_64, aarch64),
except the ``pivot_root`` syscall number, which is looked up per machine.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import signal
import time
from dataclasses import dataclass
from pathlib import Path

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
JOB_NAMESPACES = CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET
"""The namespaces a job's supervisor unshares before forking the job (its uts, ipc, pid and
network namespace). The job's own mount namespace is made by the job itself in
:func:`enter_jail`: ``pivot_root`` moves every process of a mount namespace, and the
supervisor must keep the host's view (cgroups) while the job is jailed."""

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38

_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "arm64": 41}
"""``__NR_pivot_root`` per architecture (arch/x86/entry/syscalls, include/uapi/asm-generic)."""

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_char_p,
    ctypes.c_ulong,
    ctypes.c_char_p,
]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.sethostname.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
_libc.prctl.argtypes = [
    ctypes.c_int,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
    ctypes.c_ulong,
]


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    """Move the calling process into new namespaces (``unshare(2)``).

    Raises:
        OSError: EPERM without CAP_SYS_ADMIN, EINVAL for unknown flags.
    """
    _check(_libc.unshare(flags), f"unshare({flags:#x})")


def mount(
    source: str | None,
    target: str | Path,
    fstype: str | None = None,
    flags: int = 0,
    data: str | None = None,
) -> None:
    """``mount(2)``; raises OSError naming the target."""
    _check(
        _libc.mount(
            source.encode() if source is not None else None,
            os.fsencode(target),
            fstype.encode() if fstype is not None else None,
            flags,
            data.encode() if data is not None else None,
        ),
        f"mount {source} on {target}",
    )


def umount(target: str | Path, flags: int = MNT_DETACH) -> None:
    """``umount2(2)``, lazily detaching by default."""
    _check(_libc.umount2(os.fsencode(target), flags), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    """``pivot_root(2)`` (no libc wrapper exists).

    Raises:
        OSError: on failure, or ENOSYS on an architecture we do not know.
    """
    number = _PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise OSError(errno.ENOSYS, f"pivot_root: unknown architecture {platform.machine()}")
    _check(
        _libc.syscall(number, os.fsencode(new_root), os.fsencode(put_old)),
        f"pivot_root({new_root}, {put_old})",
    )


def sethostname(name: str) -> None:
    """``sethostname(2)`` in the current uts namespace."""
    raw = name.encode()
    _check(_libc.sethostname(raw, len(raw)), "sethostname")


def prctl(option: int, arg2: int = 0) -> None:
    """``prctl(2)`` with one argument; raises OSError naming the option."""
    _check(_libc.prctl(option, arg2, 0, 0, 0), f"prctl({option})")


def drop_capability_bounding_set() -> None:
    """Remove every capability from the bounding set (needs CAP_SETPCAP; root has it)."""
    last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    for cap in range(last + 1):
        prctl(PR_CAPBSET_DROP, cap)


JAIL_ROOT_PREFIX = "tutor-sandbox-root-"
"""Jail roots are directories ``<parent>/tutor-sandbox-root-<zygote pid>-<random>``; the pid
lets the worker (after its zygote exited) and later zygotes (:func:`sweep_stale_jail_roots`)
remove the ones a dead zygote left."""

JOB_MOUNT_POINTS: tuple[str, ...] = ("proc", "tmp", "home/sandbox", "dev/shm")
"""Where each job mounts its own fresh filesystem (:func:`enter_jail`), relative to the root."""

HOLD_DIR = ".held"
"""Directory of the jail root where paths under a job mount point are held (see
:class:`HeldBind`)."""


@dataclass(frozen=True, slots=True)
class HeldBind:
    """A read-only host directory that lies under a per-job mount point (e.g. a venv in /tmp).

    Bound at its own path in the jail root, it would be hidden by the job's fresh tmpfs, so
    :func:`build_jail_root` binds it at ``hold`` instead and :func:`enter_jail` binds it
    again, read-only, at ``target`` on top of the job's tmpfs before ``pivot_root``.

    Attributes:
        hold: where it is held, relative to the jail root (``.held/0``).
        target: its own absolute path, where jobs see it (``/tmp/x/.venv``).
    """

    hold: Path
    target: Path


@dataclass(frozen=True, slots=True)
class JailRoot:
    """The read-only root jobs are jailed in (:func:`build_jail_root`).

    Attributes:
        path: the root's directory on the host (a mount point only in the zygote's private
            mount namespace; empty on the host).
        held: directories to bind again on top of the job's own mounts.
    """

    path: Path
    held: tuple[HeldBind, ...] = ()


def _under_job_mount(path: Path) -> bool:
    return any(path.is_relative_to(Path("/") / m) for m in JOB_MOUNT_POINTS)


def build_jail_root(extra_ro: list[Path], uid: int, parent: Path) -> JailRoot:
    """Build a read-only root for jobs in a fresh private mount namespace of the caller.

    The caller (the zygote) moves into its own mount namespace, so nothing here is visible
    on the host. The root is a small tmpfs holding read-only binds of the system (``/usr``,
    ``/lib*``, the ``/bin``-style symlinks), the Python installation and site-packages in
    ``extra_ro``, five device nodes, and a minimal ``/etc``. Each job later mounts its own
    ``/proc``, ``/tmp``, ``/home/sandbox`` and ``/dev/shm`` on it (:func:`enter_jail`).
    The project directory, ``data/`` and the host's ``/etc`` are not in it.

    A directory of ``extra_ro`` under one of those per-job mount points (a venv or Python
    under ``/tmp``, as in a CI clone) is held aside and bound again by each job on top of
    its fresh tmpfs (:class:`HeldBind`): jobs are forks of the zygote, so every path must
    stay the same.

    The root's directory on the host, ``parent/tutor-sandbox-root-<pid>-XXXXXXXX``, stays
    empty there; remove it with :func:`remove_jail_roots` once the zygote has exited (never
    before: removing a mount point from another mount namespace detaches the mount there).

    Args:
        extra_ro: directories to expose read-only at the same path (Python, site-packages).
        uid: the jobs' uid, written to the jail's ``/etc/passwd``.
        parent: the directory the root's directory is made in (the worker's temp dir).

    Returns:
        The jail root.

    Raises:
        OSError: when a namespace or mount operation is refused (naming the call and path).
    """
    import tempfile

    unshare(CLONE_NEWNS)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = Path(tempfile.mkdtemp(prefix=f"{JAIL_ROOT_PREFIX}{os.getpid()}-", dir=parent))
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=2m,mode=0755")
    binds: list[Path] = []
    for name in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / name
        if host.is_symlink():
            (root / name).symlink_to(os.readlink(host))
        elif host.is_dir():
            binds.append(host)
    for path in extra_ro:
        path = path.resolve()
        if path.is_dir() and not any(path.is_relative_to(b) for b in binds):
            binds = [b for b in binds if not b.is_relative_to(path)]
            binds.append(path)
    held: list[HeldBind] = []
    for host in binds:
        if _under_job_mount(host):
            hold = Path(HOLD_DIR) / str(len(held))
            held.append(HeldBind(hold=hold, target=host))
            target = root / hold
        else:
            target = root / host.relative_to("/")
        target.mkdir(parents=True, exist_ok=True)
        _bind_read_only(host, target)
    dev = root / "dev"
    dev.mkdir(exist_ok=True)
    for node in ("null", "zero", "full", "random", "urandom"):
        (dev / node).touch()
        mount(f"/dev/{node}", dev / node, None, MS_BIND)
    for link, dest in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0")):
        (dev / link).symlink_to(dest)
    (dev / "stdout").symlink_to("/proc/self/fd/1")
    (dev / "stderr").symlink_to("/proc/self/fd/2")
    for name in JOB_MOUNT_POINTS:
        (root / name).mkdir(parents=True, exist_ok=True)
    etc = root / "etc"
    etc.mkdir(exist_ok=True)
    for name in ("ld.so.cache", "localtime"):
        with contextlib.suppress(OSError):
            (etc / name).write_bytes((Path("/etc") / name).read_bytes())
    (etc / "passwd").write_text(
        f"root:x:0:0:root:/root:/usr/sbin/nologin\n"
        f"sandbox:x:{uid}:{uid}:sandbox:/home/sandbox:/usr/sbin/nologin\n"
    )
    (etc / "group").write_text(f"root:x:0:\nsandbox:x:{uid}:\n")
    (etc / "hostname").write_text("sandbox\n")
    mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "size=2m")
    return JailRoot(path=root, held=tuple(held))


def _bind_read_only(source: Path, target: Path) -> None:
    mount(str(source), target, None, MS_BIND | MS_REC)
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def remove_jail_roots(parent: Path, pid: int) -> list[Path]:
    """Remove the (empty on the host) jail root directories zygote ``pid`` made in ``parent``.

    Call it only once that zygote has exited: removing a directory that is a mount point in
    another mount namespace detaches the mount there (Linux >= 3.18), which would take the
    root from under a running zygote's jobs. Only empty directories are removed (rmdir).

    Returns:
        The directories removed.
    """
    removed = []
    for path in parent.glob(f"{JAIL_ROOT_PREFIX}{pid}-*"):
        with contextlib.suppress(OSError):
            path.rmdir()
            removed.append(path)
    return removed


def sweep_stale_jail_roots(parent: Path) -> list[Path]:
    """Remove jail root directories in ``parent`` whose zygote is gone (killed, crashed).

    A directory counts only when its name carries a pid (``tutor-sandbox-root-<pid>-…``)
    and no process has that pid; directories of older versions (no pid) and of running
    zygotes are left alone.

    Returns:
        The directories removed.
    """
    removed = []
    for path in parent.glob(f"{JAIL_ROOT_PREFIX}*-*"):
        owner, sep, _ = path.name.removeprefix(JAIL_ROOT_PREFIX).partition("-")
        if not sep or not owner.isdigit() or Path(f"/proc/{owner}").exists():
            continue
        with contextlib.suppress(OSError):
            path.rmdir()
            removed.append(path)
    return removed


def enter_jail(root: JailRoot, uid: int, tmp_mib: int) -> None:
    """Finish a job's jail from inside its namespaces and make ``root`` the filesystem root.

    Must run as root in the job's pid namespace (pid 1 there), after
    :func:`build_jail_root` in an ancestor mount namespace. Mounts a fresh ``/proc`` (only
    the job's processes), and private, size-capped tmpfs for ``/tmp``, ``/home/sandbox``
    (the working directory) and ``/dev/shm``, in a mount namespace of its own; they vanish
    with it. Held directories (a venv under ``/tmp``) are then bound read-only at their
    own paths on top of those, and their holding binds detached.

    Args:
        root: the jail root from :func:`build_jail_root`.
        uid: owner of the working directory.
        tmp_mib: size of each tmpfs in MiB.

    Raises:
        OSError: a mount or ``pivot_root`` was refused (naming it).
    """
    unshare(CLONE_NEWNS)
    path = root.path
    flags = MS_NOSUID | MS_NODEV
    mount("proc", path / "proc", "proc", flags | MS_NOEXEC)
    # A held directory under /tmp (a checkout's .venv in /tmp/<clone>) has to sit at its own
    # path in the job's /tmp, so that /tmp would list the host's directory name (fresh26
    # saw an empty-looking "fresh26"). Then /tmp is 1733, as on hardened hosts: the job
    # creates, reads and removes its files by name (tempfile too), but cannot list /tmp.
    hidden = any(h.target.is_relative_to("/tmp") for h in root.held)  # noqa: S108
    tmp_mode = "1733" if hidden else "1777"
    mount("tmpfs", path / "tmp", "tmpfs", flags, f"size={tmp_mib}m,mode={tmp_mode}")
    mount("tmpfs", path / "dev/shm", "tmpfs", flags, f"size={tmp_mib}m,mode=1777")
    mount(
        "tmpfs",
        path / "home/sandbox",
        "tmpfs",
        flags,
        f"size={tmp_mib}m,mode=0700,uid={uid},gid={uid}",
    )
    for held in root.held:
        target = path / held.target.relative_to("/")
        target.mkdir(parents=True, exist_ok=True)
        _bind_read_only(path / held.hold, target)
    for held in root.held:
        umount(path / held.hold, MNT_DETACH)
    sethostname("sandbox")
    os.chdir(path)
    pivot_root(".", ".")
    umount(".", MNT_DETACH)
    os.chdir("/home/sandbox")


def drop_privileges(uid: int) -> None:
    """Become ``uid``/``uid`` with no groups, no capabilities and no way to regain any.

    Order matters: the bounding set is emptied while we still hold CAP_SETPCAP; the uid
    change then clears the permitted and effective sets; no_new_privs makes setuid binaries
    and file capabilities inert for every later ``execve``.
    """
    if os.geteuid() == 0:
        drop_capability_bounding_set()
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_SET_DUMPABLE, 0)


@dataclass(frozen=True, slots=True)
class CgroupStats:
    """What a job's cgroup recorded.

    Attributes:
        oom_kills: processes the kernel killed for exceeding the memory limit.
        peak_bytes: peak memory charged to the job, bytes (None where the kernel lacks it).
        pids_max_hits: times a fork or thread creation failed at the pids limit.
    """

    oom_kills: int
    peak_bytes: int | None
    pids_max_hits: int


def _read_keyed(path: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    with contextlib.suppress(OSError):
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            with contextlib.suppress(ValueError):
                out[key] = int(value)
    return out


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _read_words(path: Path) -> set[str]:
    try:
        return set(path.read_text().split())
    except OSError:
        return set()


# The three calls below are every change JobCgroup makes to a cgroup filesystem; tests of
# the v2 logic replace them with a simulated kernel (tests/sandbox/fake_cgroupfs.py).


def cgroup_write(path: Path, value: str) -> None:
    """Write ``value`` to an existing cgroup interface file (never creates one).

    A cgroup filesystem has no regular files to create: a missing interface file means the
    controller is not enabled for that group, so it is an error, not a new file.

    Raises:
        OSError: with the kernel's errno (ENOENT missing file, EBUSY, EINVAL, ...) and a
            message naming the file and the value.
    """
    try:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, value.encode())
        finally:
            os.close(fd)
    except OSError as exc:
        raise OSError(
            exc.errno, f"write {value!r} to {path}: {os.strerror(exc.errno or 0)}"
        ) from exc


def cgroup_mkdir(path: Path) -> None:
    """Create one cgroup (its parent must exist); an existing one is fine."""
    path.mkdir(exist_ok=True)


def cgroup_rmdir(path: Path) -> None:
    """Remove one empty cgroup (no process, no child); ``rmdir(2)`` errors pass through."""
    path.rmdir()


class JobCgroup:
    """One job's own cgroup(s): a memory limit with swap 0 and a pids limit, per job.

    Each job gets its own leaf (snekbox learned that a shared parent made parallel jobs
    kill each other); the parent ``tutor-sandbox`` group carries no limit. Works on cgroup v1
    (separate ``memory`` and ``pids`` hierarchies, as on these machines) and on a pure
    cgroup v2 host (one unified hierarchy).

    On cgroup v2 a group only has ``memory.*`` and ``pids.*`` files when its parent's
    ``cgroup.subtree_control`` enables them, from the root the process sees
    (``/sys/fs/cgroup``: the real root on a host, the namespace root in a container) down
    to the leaf; :meth:`available` enables them on ``ROOT`` and on ``tutor-sandbox`` once,
    before any job. A non-root group with processes cannot enable controllers for its
    children (the "no internal process" rule, Documentation/admin-guide/cgroup-v2.rst
    2-4-3): in a container with its own cgroup namespace the worker sits in ``ROOT``
    itself, so its processes are first moved into the child ``ROOT/init`` (as snekbox
    does). The real root is exempt and keeps its processes.

    Args:
        name: the leaf's name, unique per job (starting with the zygote's pid, see
            :meth:`sweep_stale`).
    """

    ROOT = Path("/sys/fs/cgroup")
    PARENT = "tutor-sandbox"
    INIT = "init"
    """v2: the child of ``ROOT`` that ``ROOT``'s processes move to when ``ROOT`` is not the
    real root and so may not hold processes while enabling controllers for children."""
    CONTROLLERS = ("memory", "pids")
    _PROBE_MEMORY_BYTES = 64 * 1024 * 1024
    """v2: limits of the probe leaf :meth:`available` makes and removes (bytes, pids)."""
    _PROBE_PIDS = 16

    def __init__(self, name: str) -> None:
        self.v2 = self.unified()
        if self.v2:
            self.dirs = [self.ROOT / self.PARENT / name]
        else:
            self.dirs = [self.ROOT / ctrl / self.PARENT / name for ctrl in self.CONTROLLERS]

    @classmethod
    def unified(cls) -> bool:
        """True on a pure cgroup v2 host."""
        return (cls.ROOT / "cgroup.controllers").exists()

    @classmethod
    def available(cls) -> str | None:
        """None when per-job memory and pids cgroups can be made, else why not (words).

        On cgroup v2 this also prepares the hierarchy (idempotent; see the class docstring)
        and then makes, checks and removes a probe leaf, so a host where creation would fail
        (controllers not delegated, a busy parent, a read-only mount) is found here, before
        any job, and the caller falls back to another backend with this reason.
        """
        if cls.unified():
            controllers = _read_words(cls.ROOT / "cgroup.controllers")
            missing = set(cls.CONTROLLERS) - controllers
            if missing:
                return (
                    f"cgroup v2 at {cls.ROOT} lacks the {', '.join(sorted(missing))} "
                    "controller(s) (not enabled in its parent's cgroup.subtree_control)"
                )
            parent = cls.ROOT / cls.PARENT
        else:
            for ctrl in cls.CONTROLLERS:
                if not (cls.ROOT / ctrl / "cgroup.procs").exists():
                    return f"no cgroup v1 {ctrl} hierarchy at {cls.ROOT / ctrl}"
            parent = cls.ROOT / "memory" / cls.PARENT
        if not os.access(parent if parent.exists() else parent.parent, os.W_OK):
            return f"cannot write {parent} (needs root or a delegated cgroup)"
        if cls.unified():
            probe = cls(f"{os.getpid()}-probe")
            try:
                cls.prepare_v2()
                probe.create(cls._PROBE_MEMORY_BYTES, cls._PROBE_PIDS)
            except OSError as exc:
                return f"cgroup v2 per-job groups cannot be made: {exc}"
            finally:
                with contextlib.suppress(OSError):
                    probe.remove()
        return None

    @classmethod
    def prepare_v2(cls) -> None:
        """Enable the memory and pids controllers from ``ROOT`` down to ``tutor-sandbox``.

        Writes ``+memory +pids`` to ``ROOT/cgroup.subtree_control`` (moving ``ROOT``'s
        processes into ``ROOT/init`` first when the kernel answers EBUSY) and to
        ``tutor-sandbox/cgroup.subtree_control``; each only when not yet enabled.

        Raises:
            OSError: a write was refused (the message names the file), or the processes
                could not be moved out of ``ROOT``.
        """
        cls._enable_controllers(cls.ROOT, evacuate=True)
        parent = cls.ROOT / cls.PARENT
        cgroup_mkdir(parent)
        cls._enable_controllers(parent, evacuate=False)

    @classmethod
    def _enable_controllers(cls, group: Path, *, evacuate: bool) -> None:
        wanted = set(cls.CONTROLLERS)
        control = group / "cgroup.subtree_control"
        request = " ".join(f"+{c}" for c in cls.CONTROLLERS)
        for _ in range(10):  # processes forked while moving the others: move those too
            if wanted <= _read_words(control):
                return
            try:
                cgroup_write(control, request)
                return
            except OSError as exc:
                if exc.errno != errno.EBUSY:
                    raise
                if not evacuate:
                    raise OSError(
                        errno.EBUSY,
                        f"{group} holds processes, so it cannot enable controllers for its "
                        f"children (cgroup v2 no-internal-process rule): {exc}",
                    ) from exc
                init = group / cls.INIT
                cgroup_mkdir(init)
                for pid in (group / "cgroup.procs").read_text().split():
                    try:
                        cgroup_write(init / "cgroup.procs", pid)
                    except OSError as move:
                        if move.errno != errno.ESRCH:  # gone meanwhile: nothing to move
                            raise
        raise OSError(errno.EBUSY, f"{group} kept gaining processes; could not enable {request}")

    def create(self, memory_bytes: int, pids: int) -> None:
        """Make the leaf (and the parent on first use) and set both limits.

        On cgroup v2 the hierarchy must have been prepared (:meth:`available`, which the
        zygote calls before any job); a leaf born without the controllers' files is removed
        and refused.

        Args:
            memory_bytes: memory limit, bytes (swap is limited to 0 besides).
            pids: most processes and threads at once.

        Raises:
            OSError: when the cgroup filesystem refuses, or (v2) the leaf has no
                ``memory.max`` / ``pids.max`` because the parent does not enable them.
        """
        if self.v2:
            leaf = self.dirs[0]
            cgroup_mkdir(leaf)
            absent = [f for f in ("memory.max", "pids.max") if not (leaf / f).exists()]
            if absent:
                self.remove()
                raise OSError(
                    errno.ENOENT,
                    f"{leaf} has no {' or '.join(absent)}: {leaf.parent}/cgroup.subtree_control "
                    "does not enable the memory and pids controllers",
                )
        else:
            for path in self.dirs:
                path.mkdir(parents=True, exist_ok=True)
        self.set_limits(memory_bytes, pids)

    def set_limits(self, memory_bytes: int, pids: int) -> None:
        """Set the memory (swap included, so swap is 0) and process limits.

        Only lowering is expected after :meth:`create`; for cgroup v1 the memory limit is
        written before memory+swap so the kernel's ``memsw >= memory`` rule holds.
        """
        if self.v2:
            leaf = self.dirs[0]
            cgroup_write(leaf / "memory.max", str(memory_bytes))
            if (leaf / "memory.swap.max").exists():  # absent without swap accounting
                cgroup_write(leaf / "memory.swap.max", "0")
            cgroup_write(leaf / "pids.max", str(pids))
            return
        mem, pid = self.dirs
        memsw = mem / "memory.memsw.limit_in_bytes"
        current = _read_int(mem / "memory.limit_in_bytes") or 0
        order = [mem / "memory.limit_in_bytes", memsw]
        if memory_bytes > current:
            order.reverse()
        for path in order:
            if path.exists():
                path.write_text(str(memory_bytes))
        with contextlib.suppress(OSError):
            (mem / "memory.swappiness").write_text("0")
        (pid / "pids.max").write_text(str(pids))

    def join(self) -> None:
        """Move the calling process into the job's cgroup(s); children are born there.

        Raises:
            OSError: the kernel refused the move (naming the ``cgroup.procs`` file).
        """
        for path in self.dirs:
            cgroup_write(path / "cgroup.procs", str(os.getpid()))

    def pids(self) -> list[int]:
        """Processes in the job's cgroup, as seen from the caller's pid namespace."""
        found: set[int] = set()
        for path in self.dirs:
            with contextlib.suppress(OSError):
                found.update(int(p) for p in (path / "cgroup.procs").read_text().split())
        return sorted(found)

    def stats(self) -> CgroupStats:
        """Read OOM kills, peak memory and pids-limit hits.

        On cgroup v2 ``memory.events`` counts in ``oom_kill`` processes killed by *any* OOM
        killer, the host's included, and in ``oom`` the times this group's own limit was
        reached with nothing left to reclaim (cgroup-v2.rst, memory.events); a kill counts
        as the job's memory limit only with both. ``memory.peak`` exists from Linux 5.19;
        before, the peak is None.
        """
        if self.v2:
            leaf = self.dirs[0]
            events = _read_keyed(leaf / "memory.events")
            pid_events = _read_keyed(leaf / "pids.events")
            return CgroupStats(
                oom_kills=events.get("oom_kill", 0) if events.get("oom", 0) else 0,
                peak_bytes=_read_int(leaf / "memory.peak"),
                pids_max_hits=pid_events.get("max", 0),
            )
        mem, pid = self.dirs
        oom = _read_keyed(mem / "memory.oom_control")
        return CgroupStats(
            oom_kills=oom.get("oom_kill", 0),
            peak_bytes=_read_int(mem / "memory.max_usage_in_bytes"),
            pids_max_hits=_read_keyed(pid / "pids.events").get("max", 0),
        )

    def kill_all(self, timeout_s: float = 5.0) -> bool:
        """Kill every process in the cgroup and wait until it is empty.

        On cgroup v2 with ``cgroup.kill`` (Linux 5.14+) one write kills the whole group
        atomically, processes forking meanwhile included; elsewhere every listed process
        is sent SIGKILL, again until none is left.

        Args:
            timeout_s: how long to wait for the group to empty, seconds.

        Returns:
            True when the cgroup is empty, False if processes remained after ``timeout_s``.
        """
        deadline = time.monotonic() + timeout_s
        killer = self.dirs[0] / "cgroup.kill" if self.v2 else None
        while True:
            pids = self.pids()
            if not pids:
                return True
            if time.monotonic() > deadline:
                return False
            if killer is not None and killer.exists():
                try:
                    cgroup_write(killer, "1")
                except OSError:
                    killer = None  # fall back to signalling each process
            if killer is None or not killer.exists():
                for pid in pids:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)

    def remove(self) -> None:
        """Delete the leaf cgroup(s); missing ones are fine, busy ones are retried for ~1 s.

        Raises:
            OSError: the kernel refused with anything but EBUSY (a leaf still busy after
                ~1 s is left for :meth:`sweep_stale`).
        """
        for path in self.dirs:
            with contextlib.suppress(FileNotFoundError):
                for _ in range(100):
                    try:
                        cgroup_rmdir(path)
                        break
                    except OSError as exc:
                        if exc.errno != errno.EBUSY:
                            raise
                        time.sleep(0.01)

    @classmethod
    def sweep_stale(cls) -> None:
        """Remove leaves left by zygotes that died (leaf names start with the zygote pid)."""
        parents = (
            [cls.ROOT / cls.PARENT]
            if cls.unified()
            else [cls.ROOT / ctrl / cls.PARENT for ctrl in ("memory", "pids")]
        )
        for parent in parents:
            if not parent.is_dir():
                continue
            for leaf in parent.iterdir():
                owner = leaf.name.split("-", 1)[0]
                if not leaf.is_dir() or not owner.isdigit() or Path(f"/proc/{owner}").exists():
                    continue
                with contextlib.suppress(OSError):
                    for pid in (leaf / "cgroup.procs").read_text().split():
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(int(pid), signal.SIGKILL)
                    cgroup_rmdir(leaf)
