"""Score what announced news retires: the two-session items of
``benchmarks/data/announced_news.json`` through the whole extraction pipeline.

    python benchmarks/announced_news.py [--items benchmarks/data/announced_news.json]
                                        [--out FILE.json] [--show-wrong] [--newest-first]

A turn that opens by announcing news ("Update:", "Big news!") makes each of its sentences a
change, and a name it shares with an earlier record links the two
(core.extraction.corrections). Whether that retires the right records is measured here on
629 items five review sessions wrote in session 43, each labelled before any code ran: group A
news makes an earlier record stale ("Big news: Anna starts at Google in May." after "My sister
Anna works at Microsoft."), group B changes nothing said before ("Update: Jack scored two goals
on Saturday!" after "My son Jack is 7 and plays football on Saturdays."), group C is tricky
(deaths, closures, break-ups, ambiguous names).

Each item's sessions are extracted a month apart in a fresh store (``tests.support.extraction``:
a real SQLite file, the packaged embedder, the offline model backend and the default judge);
with ``--newest-first`` the last session is extracted first, as a worker's backlog would, and
the same labels must hold (the earlier words arrive as history of the news they are stale by).
A label is a substring of an earlier session's record (content or evidence, any case); it is
right when every record holding it is retired ("retire") or live ("keep"). An item is right
when every label found is right; one whose labelled records the extractor never wrote is
"missing". Figures and the rules tried against them: benchmarks/README.md, "Session 43".
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_memory.core.config import Config
from agent_memory.core.embedder import Embedder, make_embedder
from agent_memory.core.models import Record, Status
from tests.support.extraction import extracted_session, extracting_memory, stated_records

ITEMS = Path(__file__).resolve().parent / "data" / "announced_news.json"
LIVE = (Status.CONFIRMED, Status.PROVISIONAL)


def earlier_records(
    item: dict[str, Any], embedder: Embedder, *, newest_first: bool = False
) -> list[Record]:
    """The records the item's sessions leave, but those of its last session's words;
    ``newest_first``: the sessions extracted from the last to the first, each still said on
    its own day (a worker's backlog: core.write.stale, "the order sessions are extracted in")."""
    with (
        tempfile.TemporaryDirectory() as folder,
        extracting_memory(Path(folder) / "m.db", embedder) as memory,
    ):
        sessions = list(enumerate(item["sessions"]))
        for index, turns in reversed(sessions) if newest_first else sessions:
            extracted_session(memory, f"s{index + 1}", *turns, days=30 * index)
        records = stated_records(memory)
    last = " ".join(item["sessions"][-1]).casefold()
    return [r for r in records if (r.evidence or r.content).casefold().strip() not in last]


def score(item: dict[str, Any], records: list[Record]) -> str:
    """ "right", "wrong" or "missing" (module docstring)."""
    found = False
    for kind in ("retire", "keep"):
        for label in item[kind]:
            said = label.casefold()
            holding = [r for r in records if said in f"{r.content} {r.evidence or ''}".casefold()]
            found = found or bool(holding)
            live = [r.status in LIVE for r in holding]
            if (kind == "retire" and any(live)) or (kind == "keep" and not all(live)):
                return "wrong"
    return "right" if found else "missing"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=Path, default=ITEMS)
    parser.add_argument("--out", type=Path, help="write each item's outcome as JSON here")
    parser.add_argument("--show-wrong", action="store_true", help="print each wrong item")
    parser.add_argument(
        "--newest-first", action="store_true", help="extract each item's sessions last to first"
    )
    args = parser.parse_args()
    items = json.loads(args.items.read_text(encoding="utf-8"))["items"]
    embedder = make_embedder(Config().embedder)
    outcomes: dict[str, str] = {}
    counts: dict[str, Counter[str]] = {}
    for item in tqdm(items, desc="announced news", unit="item"):
        outcome = score(item, earlier_records(item, embedder, newest_first=args.newest_first))
        outcomes[item["id"]] = outcome
        counts.setdefault(item["group"], Counter())[outcome] += 1
        if args.show_wrong and outcome == "wrong":
            tqdm.write(f"wrong {item['id']}: {item['sessions']}")
    for group in sorted(counts):
        c = counts[group]
        scored = c["right"] + c["wrong"]
        print(
            f"group {group}: right {c['right']} of {scored} ({c['right'] / max(scored, 1):.3f}),"
            f" missing {c['missing']}"
        )
    if args.out:
        args.out.write_text(json.dumps(outcomes, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
