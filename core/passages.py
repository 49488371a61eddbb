"""Passages: the sentences of a record that says several things, each with a vector of its own.

A record's vector is made from its whole text (core.store.records.embedding_text). A record
that says several things sits far from a question about one of them: a turn ending "... when
Elias is with me. He's 15 and lives with me every other week." is at cosine 0.10 from "How
old is my son?", its last sentence at 0.46. So a record whose content has two sentences or more
also stores one vector per passage, and the dense generator scores it by its best passage too
(core.index.VectorIndex.search, ``passage_discount``).

A passage is a sentence of the content (as the offline extractor reads sentences: "Dr. Patel"
ends none, core.sentences), joined to the one before when it opens with a pronoun
("Her name is Priya Raman." alone answers "What's my mom's name?"; after "Can you help me write
an email to my manager?" it does not). Sentences of one word ("Perfect.") are no passage. At
most ``MAX_PASSAGES`` per record, the first ones: 99% of the personal set's turns have no more,
a write embeds them in one small batch of their own (``embed_passages``), and a store of long
turns (LongMemEval's assistant answers) holds about as many passage vectors as whole ones again
(the bench's 50,000 records: RSS after building the index 368 -> 667 MB).

A sentence that asks something after stating something is a passage without the question
(``_stated``): "I do reformer pilates 3x a week, will that help with ski legs?" is at cosine
0.35 from "What kind of workout do I do regularly?", its statement at 0.50. The record's whole
vector still reads the question; a question alone, or one that opens its sentence ("Is it
normal, or should I see a doctor?"), is a passage as it stands.

A record whose vector also reads a retrieval context (an extracted sentence reads its whole
turn, an imported turn the turns before it: core.store.records.embedding_text) has its own
words as a passage even when they are one sentence (``in_context``): "I do reformer pilates 3x
a week" is at cosine 0.50 from "What kind of workout do I do regularly?", its vector with its
turn ("..., will that help with ski legs?") at 0.34, under the floor of a small store.

Passages are made from the content only (never the retrieval context, which is the turns
around it), by the store's embedder, and live and die with the record's vector: a forgotten
record loses both, a rewritten one gets both anew, ``agent-memory reembed`` remakes both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from agent_memory.core.framing import LEAD, asks
from agent_memory.core.sentences import sentences

if TYPE_CHECKING:
    from agent_memory.core.embedder import Embedder

MAX_PASSAGES = 6
MIN_WORDS = 2
MIN_STATED_WORDS = 4

# Where a question tagged onto a statement begins ("..., will that help with ski legs?"), and
# the label an imported turn opens with ("user: ", "Caroline: ": core.write.conversation).
_TAG_BREAK = re.compile(r"[,;]+\s+|\s+[-\u2013\u2014]{1,2}\s+")
_LABEL = re.compile(r"^[^\s:][^:\n]{0,40}:\s+")
_OPENS_WITH_PRONOUN = re.compile(
    r"[\"'(]*(?:he|she|they|it|his|her|their|its|him|them|this|that|these|those)\b",
    re.IGNORECASE,
)


def passages(content: str, *, in_context: bool = False) -> list[str]:
    """The passages of ``content``; none when it holds fewer than two, unless its record's
    vector also reads a retrieval context (``in_context``): then one is a passage too."""
    said = [_stated(s) for s in sentences(content) if len(s.split()) >= MIN_WORDS]
    joined: list[str] = []
    for sentence in said:
        if joined and _OPENS_WITH_PRONOUN.match(sentence):
            joined[-1] = f"{joined[-1]} {sentence}"
        else:
            joined.append(sentence)
    return joined[:MAX_PASSAGES] if len(joined) >= (1 if in_context else 2) else []


def _stated(sentence: str) -> str:
    """``sentence`` without a question tagged onto the statement it opens with: "I do reformer
    pilates 3x a week, will that help with ski legs?" is at cosine 0.35 from "What kind of
    workout do I do regularly?", its statement at 0.50. The question is the sentence's last
    clause ("My mom, who lives in Valencia, wants to fly in, is that too early?" keeps all
    but "is that too early?"), and the statement, a speaker's label ("user: ") and an opener
    ("Quick question", "So") aside, has ``MIN_STATED_WORDS`` words and does not ask itself: a
    question alone, one that opens its sentence ("Is it normal, or should I ...?"), or one
    after a greeting stays as it is."""
    breaks = list(_TAG_BREAK.finditer(sentence)) if sentence.rstrip().endswith("?") else []
    if not breaks:
        return sentence
    head, tail = sentence[: breaks[-1].start()], sentence[breaks[-1].end() :]
    said = LEAD.sub("", _LABEL.sub("", head, count=1))
    if len(said.split()) < MIN_STATED_WORDS or asks(said) or not asks(tail):
        return sentence
    return head.rstrip(" ,;")


def reads_context(text: str, content: str) -> bool:
    """Whether a record's embedding ``text`` reads a retrieval context after its ``content``
    (core.store.records.embedding_text). A procedure's name and trigger, before its content,
    are its description, not a context: its content is no passage of its own."""
    return text.startswith(f"{content}\n")


class Embedded(NamedTuple):
    """A record's vectors: of its whole text, and of its passages (None: it has none)."""

    vector: np.ndarray
    passages: np.ndarray | None


def embed(embedder: Embedder, texts: Sequence[str], contents: Sequence[str]) -> list[Embedded]:
    """For each record, the vector of its embedding text (``texts``) and of the passages of its
    content (``contents``)."""
    if len(texts) != len(contents):
        raise ValueError(f"{len(texts)} texts for {len(contents)} contents")
    split = [
        passages(content, in_context=reads_context(text, content))
        for text, content in zip(texts, contents, strict=True)
    ]
    vectors, parts_vectors = embedder.embed(texts), embed_passages(embedder, split)
    embedded, at = [], 0
    for vector, parts in zip(vectors, split, strict=True):
        embedded.append(Embedded(vector, parts_vectors[at : at + len(parts)] if parts else None))
        at += len(parts)
    return embedded


def embed_passages(embedder: Embedder, split: Sequence[Sequence[str]]) -> np.ndarray:
    """The vectors of the passages ``split`` holds, one after another, in a call of their own:
    a batch pads every text to its longest, and a record's whole text beside its sentences
    made one write of twelve sentences cost 262 ms instead of 46."""
    flat = [p for parts in split for p in parts]
    return embedder.embed(flat) if flat else np.zeros((0, embedder.identity.dims), np.float32)
