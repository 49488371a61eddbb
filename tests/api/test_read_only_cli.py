"""`agent-memory search/get/stats` on a read-only store (issue 17 item 8): with --read-only,
and by themselves when the store cannot be written; the commands that write are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_memory.core.embedder import FlagEmbedder
from tests.api.test_cli_input import assert_one_line_error, run
from tests.core.test_read_only import contents, make_store, read_only_media  # noqa: F401

WHO = ["--agent", "assistant", "--user", "u1"]


def test_search_get_and_stats_with_read_only_write_nothing(
    store_path: Path, real_embedder: FlagEmbedder, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = make_store(store_path, real_embedder)
    before = contents(store_path)
    store = ["--store", str(store_path), "--read-only"]
    code, out, err = run(capsys, "search", "Where does the user live?", *WHO, *store, "--json")
    assert code == 0, err
    found = json.loads(out)
    assert found["results"][0]["id"] == ids[1] and found["explanation"]["logged"] is False
    code, out, err = run(capsys, "get", ids[0], *WHO, *store, "--json")
    assert code == 0 and [r["id"] for r in json.loads(out)["records"]] == [ids[0]], err
    code, out, err = run(capsys, "stats", *store, "--json")
    assert code == 0 and json.loads(out)["records"] == 3, err
    assert contents(store_path) == before


def test_on_read_only_media_reads_open_read_only_by_themselves_and_writes_are_refused(
    read_only_media: tuple[Path, Path],  # noqa: F811
    real_embedder: FlagEmbedder,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, mounted = read_only_media
    ids = make_store(folder / "memory.db", real_embedder)
    files = sorted(p.name for p in folder.iterdir())
    store = ["--store", str(mounted / "memory.db")]
    code, out, err = run(capsys, "search", "peanut allergy", *WHO, *store)
    assert code == 0 and "allergic to peanuts" in out
    assert err == "agent-memory: note: opened read-only (its file is not writable)\n"
    code, out, err = run(capsys, "forget", ids[2], *WHO, *store)
    assert_one_line_error(code, out, err, "--read-only")
    assert sorted(p.name for p in folder.iterdir()) == files
