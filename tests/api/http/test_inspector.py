"""The inspector (issue 19 item 5) in Debian's headless Chromium against a real ``agent-memory
serve``: an admin key logs in through the page's form and sees the user's records, a
search's explanations and an empty answer's; a non-admin key gets 403; the page writes
nothing."""

from __future__ import annotations

import html
import shutil
import sqlite3
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.http_server import add_key, running_server

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)"
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, str, str]]:
    """A server with alice's records: one confirmed, one superseding another."""
    store = tmp_path_factory.mktemp("inspector") / "memory.db"
    planner, admin = add_key(store, "planner"), add_key(store, "ops", admin=True)
    with running_server(store) as base:
        admin_auth = {"Authorization": f"Bearer {admin}"}
        httpx.post(f"{base}/v1/admin/grants", json={"agent_id": "planner", "scope": "user:alice"},
                   headers=admin_auth).raise_for_status()  # fmt: skip
        auth = {"Authorization": f"Bearer {planner}"}
        session = httpx.post(f"{base}/v1/sessions", json={"user_id": "alice"}, headers=auth)
        tools = f"{base}/v1/sessions/{session.json()['session_id']}"
        said = ["I keep three beehives on the roof.", "I prefer short answers.",
                "Actually I prefer detailed answers."]  # fmt: skip
        turns = {"turns": [{"role": "user", "content": text} for text in said]}
        httpx.post(f"{tools}/turns", json=turns, headers=auth).raise_for_status()
        for content, evidence, attribute in (
            ("The user keeps three beehives.", said[0], None),
            ("The user prefers short answers.", said[1], "answer_length"),
            ("The user prefers detailed answers.", said[2], "answer_length"),
        ):
            write = {"type": "semantic", "content": content, "source_kind": "user_statement",
                     "evidence": evidence, "attribute": attribute}  # fmt: skip
            httpx.post(f"{tools}/tools/memory_write", json=write, headers=auth).raise_for_status()
        yield base, store, admin, planner


def chromium(*args: str, profile: Path) -> str:
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--user-data-dir={profile}", "--virtual-time-budget=15000", *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def login_page(tmp: Path, base: str, key: str, **fields: str) -> str:
    """A local page that submits the inspector's login form (the browser part a person does
    by hand; the inspector itself runs no script)."""
    inputs = "".join(
        f'<input name="{name}" value="{html.escape(value)}">'
        for name, value in {"key": key, **fields}.items()
    )
    page = tmp / f"login-{len(list(tmp.iterdir()))}.html"
    page.write_text(
        f'<form method="post" action="{base}/inspector/login">{inputs}</form>'
        "<script>document.forms[0].submit()</script>"
    )
    return page.as_uri()


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def search_rows(store: Path) -> int:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT count(*) FROM search_log").fetchone()[0])


@needs_chromium
def test_the_page_renders_records_and_explanations(
    served: tuple[str, Path, str, str], tmp_path: Path
) -> None:
    base, store, admin, _ = served
    logged = search_rows(store)
    query = {"user": "alice", "agent": "planner", "q": "How many beehives does the user keep?"}
    dom = chromium("--dump-dom", login_page(tmp_path, base, admin, **query), profile=tmp_path / "a")
    assert "Records of alice (3)" in dom
    assert "The user keeps three beehives." in dom and "“I keep three beehives on the roof.”" in dom
    assert "superseded" in dom and "superseded by mem_" in dom and "supersedes mem_" in dom
    search = dom.split('id="search"')[1].split("Records of alice")[0]
    assert "1. The user keeps three beehives." in search
    assert "Why: dense #" in search and "gate: passed" in search  # the result's explanation
    # An empty answer says why, with the figures that decided it (the model's line keeps only
    # the gist; this page is an engineer's).
    empty = {**query, "q": "What is the boiling point of tungsten?"}
    dom = chromium("--dump-dom", login_page(tmp_path, base, admin, **empty), profile=tmp_path / "b")
    answer = dom.split('id="search"')[1].split("Records of alice")[0]
    assert "Answer:</b> every candidate was weak on every signal: best dense cosine" in answer
    # The screenshot: the page with records is drawn, and holds far more than the login form.
    full, bare = tmp_path / "inspector.png", tmp_path / "login.png"
    chromium(f"--screenshot={full}", "--window-size=1280,1600",
             login_page(tmp_path, base, admin, **query), profile=tmp_path / "c")  # fmt: skip
    chromium(f"--screenshot={bare}", "--window-size=1280,1600", f"{base}/inspector/login",
             profile=tmp_path / "d")  # fmt: skip
    assert png_size(full) == (1280, 1600)
    assert full.stat().st_size > 3 * bare.stat().st_size
    assert search_rows(store) == logged  # the inspector's searches are not logged


@needs_chromium
def test_a_non_admin_key_gets_403_in_the_browser(
    served: tuple[str, Path, str, str], tmp_path: Path
) -> None:
    base, _, _, planner = served
    dom = chromium("--dump-dom", login_page(tmp_path, base, planner, user="alice"),
                   profile=tmp_path / "p")  # fmt: skip
    assert "not a valid admin key" in dom and "Records of" not in dom


def test_the_inspector_needs_an_admin_key(served: tuple[str, Path, str, str]) -> None:
    base, _, admin, planner = served
    page = f"{base}/inspector?user=alice"
    assert httpx.get(page).status_code == 401
    denied = httpx.get(page, headers={"Authorization": f"Bearer {planner}"})
    assert denied.status_code == 403 and "The user keeps" not in denied.text
    shown = httpx.get(page, headers={"Authorization": f"Bearer {admin}"})
    assert shown.status_code == 200 and "The user keeps three beehives." in shown.text
    assert "<script" not in shown.text  # server-rendered, no JavaScript
    # Forging the cookie with a non-admin key does not help.
    cookie = httpx.get(page, cookies={"agent_memory_key": planner})
    assert cookie.status_code == 403
