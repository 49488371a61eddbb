"""Re-embedding a store with a new model: staged, swapped atomically, recorded."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agent_memory.core import Config, HashingEmbedder, Memory, reembed
from agent_memory.core.embedder import FlagEmbedder
from tests.support.clock import NOW


def test_reembed_moves_a_store_to_the_real_model(
    tmp_path: Path, real_embedder: FlagEmbedder
) -> None:
    """After reembed every live record has a 384-dim MiniLM vector and the store opens with it."""
    path = tmp_path / "m.db"
    with Memory.open(path, embedder=HashingEmbedder(64), now=NOW) as mem:
        ids = mem.import_records(
            [
                {"content": "Alice prefers concise answers."},
                {"content": "The staging database is apollo-stg-1."},
                {"content": "to be forgotten"},
            ],
            scope="user:alice",
            now=NOW,
        )
        mem.forget(ids[2], now=NOW)
        old_epoch, _ = mem.store.index_version()

    count = reembed(path, Config(), embedder=real_embedder, batch_size=1, now=NOW, progress=False)
    assert count == 2

    with Memory.open(path, embedder=real_embedder, now=NOW) as mem:
        stats = mem.stats()
        assert stats["embedder"]["name"] == real_embedder.identity.name
        assert stats["embedder"]["dims"] == 384
        assert stats["embeddings"] == 2
        assert mem.store.index_version()[0] != old_epoch
        dims = {r["dims"] for r in mem.store.query("SELECT dims FROM embeddings")}
        assert dims == {384}
        assert mem.store.query("SELECT count(*) AS n FROM embeddings_staging")[0]["n"] == 0
        hits = mem.index().search(real_embedder.embed_one("How short should replies be?"), 1)
        assert mem.store.records_by_rowid([hits[0].rowid])[hits[0].rowid].id == ids[0]
        event = mem.store.query("SELECT payload FROM events WHERE kind = 'store.reembedded'")
        assert '"records": 2' in event[0]["payload"] and "hashing" in event[0]["payload"]


def test_reembed_picks_up_records_written_while_it_ran(tmp_path: Path) -> None:
    """A record that appears after staging began is staged before the swap, never left out."""
    path = tmp_path / "m.db"
    with Memory.open(path, embedder=HashingEmbedder(64), now=NOW) as mem:
        mem.import_records([{"content": f"note {i}"} for i in range(5)], scope="user:u1", now=NOW)

    class WritesDuringEmbedding(HashingEmbedder):
        """Simulates another process importing a record while the first batch embeds."""

        wrote = False

        def embed(self, texts):  # type: ignore[no-untyped-def]
            if not self.wrote:
                self.wrote = True
                with Memory.open(path, embedder=HashingEmbedder(64), now=NOW) as other:
                    other.import_records([{"content": "late arrival"}], scope="user:u1", now=NOW)
            return super().embed(texts)

    count = reembed(path, embedder=WritesDuringEmbedding(32), batch_size=2, now=NOW, progress=False)
    assert count == 6
    with Memory.open(path, embedder=HashingEmbedder(32), now=NOW) as mem:
        assert len(mem.index()) == 6
        vectors = mem.store.query("SELECT vector FROM embeddings")
        assert all(len(np.frombuffer(v["vector"], np.float32)) == 32 for v in vectors)
