"""The budget's token counter: exact where it matters, cheap where it need not be exact."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from agent_memory.core.search.ranking import Candidate, fit_budget
from agent_memory.core.search.tokens import TokenCounter

COUNTER = TokenCounter()  # the packaged MiniLM WordPiece tokenizer
BOUNDED = TokenCounter()  # asked only bounded questions, so it caches only what it counted whole

# Words, fragments of words, punctuation, breaks the tokenizer splits on, and characters it
# deletes (control and zero-width characters, which join the fragments around them into one
# word), so cut points land everywhere.
_pieces = st.sampled_from(
    [
        "tea",
        "unbelievable",
        "un",
        "believ",
        "able",
        "Zürich",
        "naïve",
        "東京",
        "😀",
        ",",
        "'",
        " ",
        "\n",
        "\t",
        "\x1c",
        "\u200b",
        "\u00a0",
        "--",
        "x" * 40,
    ]
)
_texts = st.lists(_pieces, max_size=400).map("".join)


def test_counts_are_subword_tokens_without_special_tokens() -> None:
    assert COUNTER.count("") == 0
    assert COUNTER.count("tea") == 1
    assert COUNTER.count("unbelievably naïve") > 2  # split into word pieces


@settings(max_examples=300, deadline=None)
@given(text=_texts, room=st.integers(min_value=0, max_value=120))
@example(text="unbeliev\x1cable", room=1)  # one token whole; a cut at \x1c would make four
def test_a_bounded_count_is_exact_when_it_fits_and_above_the_room_otherwise(
    text: str, room: int
) -> None:
    """What fit_budget relies on: count(text, at_most=room) equals the full count when that
    is at most room, and otherwise is still above room and never above the full count."""
    exact = COUNTER.count(text)
    bounded = BOUNDED.count(text, at_most=room)
    if exact <= room:
        assert bounded == exact
    else:
        assert room < bounded <= exact


def test_a_long_record_that_cannot_fit_is_not_tokenised_whole() -> None:
    """With 10 tokens of room, an 8,000-character record is shown not to fit from a prefix:
    the count returned is a lower bound far below its full count."""
    text = "The user visited the old harbour market on Saturday morning. " * 130
    counter = TokenCounter()
    bound = counter.count(text, at_most=10)
    assert 10 < bound < counter.count(text) / 10


def test_fit_budget_decides_the_same_with_bounded_and_exact_counts() -> None:
    """Taking and skipping depends only on whether each candidate fits the room left."""
    texts = ["short note about tea", "word " * 900, "another short note", "word " * 30]
    candidates = [Candidate(f"r{i}") for i in range(len(texts))]
    by_id = dict(zip((c.record_id for c in candidates), texts, strict=True))
    exact_counter, bounded_counter = TokenCounter(), TokenCounter()

    def exact(c: Candidate, _room: int) -> int:
        return exact_counter.count(by_id[c.record_id])

    def bounded(c: Candidate, room: int) -> int:
        return bounded_counter.count(by_id[c.record_id], at_most=room)

    taken_exact, skipped_exact = fit_budget(
        [Candidate(c.record_id) for c in candidates], budget=100, limit=10, count=exact
    )
    taken, skipped = fit_budget(candidates, budget=100, limit=10, count=bounded)
    assert [c.record_id for c in taken] == [c.record_id for c in taken_exact] == ["r0", "r2", "r3"]
    assert [c.record_id for c in skipped] == [c.record_id for c in skipped_exact] == ["r1"]
    assert [c.tokens for c in taken] == [c.tokens for c in taken_exact]
