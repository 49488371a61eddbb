"""The one stage timer that search, write and extraction share."""

from __future__ import annotations

import pytest

from agent_memory.core.timing import StageTimer


def test_stages_are_kept_in_the_order_they_ran_and_a_repeated_stage_adds_up() -> None:
    timer = StageTimer()
    with timer.stage("embed"):
        pass
    with timer.stage("search"):
        sum(range(20_000))
    first_search = timer.timings["search"]
    with timer.stage("search"):
        sum(range(20_000))
    assert list(timer.timings) == ["embed", "search"]
    assert timer.timings["search"] > first_search
    assert timer.total_ms() >= timer.timings["embed"] + timer.timings["search"] - 0.01


def test_a_failing_stage_is_still_timed_and_observed() -> None:
    heard: list[tuple[str, float]] = []
    timer = StageTimer(observer=lambda name, started, ms: heard.append((name, ms)))
    with pytest.raises(ValueError), timer.stage("judge"):
        raise ValueError("model said no")
    assert "judge" in timer.timings
    assert heard == [("judge", heard[0][1])] and heard[0][1] >= 0
