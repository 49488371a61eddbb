"""Re-embedding a whole store with another model (`agent-memory reembed`).

Changing the embedder is a migration, never silent (design §10). New vectors are computed in
batches (no transaction is held while the model runs) and kept in a staging table; one final
transaction swaps them all in, records the new embedder and starts a new store epoch, so every
process rebuilds its index and no search ever compares vectors of two models. A crash before
the swap leaves the store on its old model; running again starts over.

Other processes writing during a re-embed: records they add are staged by a catch-up pass
before the swap. Processes still configured with the old model refuse to reopen the store
afterwards (EmbedderMismatchError), which is the point.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from tqdm import tqdm

from agent_memory.core import passages
from agent_memory.core.config import Config
from agent_memory.core.embedder import Embedder, make_embedder
from agent_memory.core.logging import get_logger
from agent_memory.core.models import utcnow
from agent_memory.core.store import Store
from agent_memory.core.write.importer import check_batch_size

log = get_logger("agent_memory")

Progress = Callable[[int], None]


def reembed(
    path: str | Path,
    config: Config | None = None,
    *,
    embedder: Embedder | None = None,
    batch_size: int = 256,
    now: datetime | None = None,
    progress: bool = True,
) -> int:
    """Re-embed every record of the store at ``path`` with the configured embedder
    (``embedder.model``, which may be ``hashing``) or ``embedder``, ``batch_size`` (at least 1)
    records at a time. Returns the number of records re-embedded. Shows a progress bar unless
    ``progress`` is False (or TQDM_DISABLE is set)."""
    check_batch_size(batch_size)
    config = config or Config()
    embedder = embedder or make_embedder(config.embedder)
    store = Store.open(path, busy_timeout_ms=config.store.busy_timeout_ms)
    try:
        previous = store.stored_embedder()
        total = store.count_live()
        store.clear_staged_vectors()
        with tqdm(total=total, unit="record", desc="re-embedding", disable=not progress) as bar:
            while True:
                batch = store.unstaged_texts(limit=batch_size)
                if batch:
                    rowids = [rowid for rowid, _, _ in batch]
                    texts = [text for _, text, _ in batch]
                    embedded = passages.embed(embedder, texts, [c for _, _, c in batch])
                    store.stage_vectors(rowids, embedded)
                    bar.update(len(batch))
                    continue
                swapped = store.swap_staged_vectors(embedder.identity, now=now or utcnow())
                if swapped is not None:
                    break
        log.info(
            "store.reembedded",
            path=str(store.path),
            records=swapped,
            embedder=str(embedder.identity),
            previous=str(previous) if previous else None,
        )
        return swapped
    finally:
        store.close()
