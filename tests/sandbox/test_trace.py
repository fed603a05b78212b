"""Hop timestamps of one run, and the Server-Timing header that carries them (no torch)."""

from __future__ import annotations

import contextvars

import pytest

from sandbox import trace
from sandbox.trace import JobTrace, ServerTiming


def _trace(*hops: tuple[trace.HopName, float]) -> JobTrace:
    job = JobTrace()
    for name, at_s in hops:
        job.mark(name, at_s)
    return job


def test_phases_are_the_time_between_consecutive_hops_named_by_the_later_hop() -> None:
    job = _trace(("received", 10.0), ("parsed", 10.0005), ("slot", 10.0015))
    assert [(p.name, round(p.ms, 6)) for p in job.phases()] == [("parse", 0.5), ("queue", 1.0)]


def test_the_header_parses_back_to_the_origin_and_the_phases() -> None:
    job = _trace(("received", 8123.456789), ("parsed", 8123.457089), ("responded", 8123.460089))
    parsed = ServerTiming.parse(job.server_timing())
    assert parsed.origin_s == pytest.approx(8123.456789)
    assert [(p.name, p.ms) for p in parsed.phases] == [("parse", 0.3), ("respond", 3.0)]


def test_a_header_without_an_origin_is_refused() -> None:
    with pytest.raises(ValueError, match="no origin"):
        ServerTiming.parse("parse;dur=0.3")


def test_a_metric_without_a_duration_is_refused() -> None:
    with pytest.raises(ValueError, match="without dur"):
        ServerTiming.parse('origin;desc="t=1.0", parse')


def _outside_then_inside() -> JobTrace:
    trace.mark("slot")  # no request is being handled in this context: nothing to record
    return trace.start()


def test_marks_outside_a_started_trace_are_ignored() -> None:
    job = contextvars.Context().run(_outside_then_inside)
    assert [h.name for h in job.hops] == ["received"]


def _request_with_spare_hops() -> JobTrace:
    job = trace.start()
    trace.extend(_trace(("handed", 2.0), ("spec", 3.0)).hops)
    trace.mark("answered", 4.0)
    return job


def test_marks_and_hops_from_another_process_go_to_the_current_trace() -> None:
    job = contextvars.Context().run(_request_with_spare_hops)
    assert [h.name for h in job.hops] == ["received", "handed", "spec", "answered"]
