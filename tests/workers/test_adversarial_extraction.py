"""Adversarial review of issue 14 item 8 through the offline extractor: misreadings still open,
kept as strict xfails so a fix shows up. Sentences written for this file."""

from __future__ import annotations

import pytest

from tests.workers.test_extraction_reading import extract


@pytest.mark.xfail(
    strict=True,
    reason="'In my novel,' is a fiction frame the judge reads but "
    "the extractor does not: it proposes the claim (stored provisional)",
)
def test_a_fiction_frame_gives_no_candidate() -> None:
    assert extract("In my novel, I am a detective.") == []


@pytest.mark.xfail(
    strict=True,
    reason="an elliptical correction ('Actually, 4 kids.') is not "
    "read as retracting the number before it",
)
def test_an_elliptical_self_correction_keeps_only_the_correction() -> None:
    assert all("3" not in content for content, _, _ in extract("I have 3 kids. Actually, 4 kids."))


@pytest.mark.xfail(
    strict=True,
    reason="a team plan without decided/agreed ('We're moving the "
    "launch to March') goes to personal, not the shared target",
)
def test_a_team_plan_goes_to_the_shared_target() -> None:
    [(_, _, target)] = extract("We're moving the launch to March.", shared="current_project")
    assert target == "current_project"
