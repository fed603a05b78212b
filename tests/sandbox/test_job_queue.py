"""The job queue: the worker's job sockets go straight to idle spares, not through the zygote."""

from __future__ import annotations

import os
import socket
import threading
import time

from sandbox.zygote import take_job


def _queue() -> tuple[socket.socket, socket.socket]:
    """(the worker's end, the spares' end) of a job queue, as the worker makes it."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)


def _send_job(worker_end: socket.socket) -> socket.socket:
    """Put one job on the queue; return the worker's end of that job's socket."""
    mine, theirs = socket.socketpair()
    socket.send_fds(worker_end, [b"run"], [theirs.fileno()])
    theirs.close()
    return mine


def test_a_spare_takes_the_job_socket_the_worker_queued() -> None:
    worker_end, spares_end = _queue()
    zygote_end, spare_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    job = _send_job(worker_end)

    fd = take_job(spare_end, spares_end)

    assert fd is not None
    with socket.socket(fileno=fd) as taken:
        job.sendall(b"spec\n")
        assert taken.recv(16) == b"spec\n"
    for sock in (worker_end, spares_end, zygote_end, spare_end, job):
        sock.close()


def test_a_waiting_spare_stops_when_the_zygote_closes_its_socket() -> None:
    worker_end, spares_end = _queue()
    zygote_end, spare_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    zygote_end.close()

    assert take_job(spare_end, spares_end) is None
    for sock in (worker_end, spares_end, spare_end):
        sock.close()


def test_each_queued_job_goes_to_exactly_one_of_the_waiting_spares() -> None:
    worker_end, spares_end = _queue()
    pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) for _ in range(3)]
    taken: list[int | None] = [None] * 3
    threads = [
        threading.Thread(target=lambda i=i: taken.__setitem__(i, take_job(pairs[i][1], spares_end)))
        for i in range(3)
    ]
    for thread in threads:
        thread.start()

    jobs = [_send_job(worker_end) for _ in range(2)]
    deadline = time.monotonic() + 10
    while sum(fd is not None for fd in taken) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)  # a third taker, if the kernel gave one message twice, would show now
    waiting = [i for i, thread in enumerate(threads) if thread.is_alive()]
    for i in waiting:
        pairs[i][0].close()  # the zygote stops the spare that got no job
    for thread in threads:
        thread.join(timeout=5)

    assert len(waiting) == 1
    assert len({fd for fd in taken if fd is not None}) == 2
    for fd in taken:
        if fd is not None:
            os.close(fd)
    for sock in (*jobs, worker_end, spares_end, *(end for pair in pairs for end in pair)):
        sock.close()
