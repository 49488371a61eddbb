"""Small helpers for loading Hugging Face models politely inside a host process."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

# embedder.threads, for torch in this process: applied when the embedder loads torch and by
# every other loader of torch models (reranker, NLI judge), since the embedder may now serve
# queries without ever importing torch.
_torch_threads = 0


def set_torch_threads(threads: int) -> None:
    """Record ``embedder.threads`` (0: torch's default) and apply it if torch is loaded."""
    global _torch_threads
    _torch_threads = threads
    apply_torch_threads()


def apply_torch_threads() -> None:
    """Give torch the recorded thread count, if one was set and torch is imported."""
    if _torch_threads and "torch" in sys.modules:
        import torch

        torch.set_num_threads(_torch_threads)  # process-wide, as torch defines it


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """Hide transformers' weight-loading progress bars (a host's output is not ours to fill),
    restoring the host's setting afterwards."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]
