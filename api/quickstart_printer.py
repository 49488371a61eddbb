"""How the quickstart tour reaches its reader: printed for a person, or one JSON document."""

from __future__ import annotations

import json
from typing import Any


class Printer:
    """Prints the tour for a person, or collects it as one JSON document."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.steps: list[dict[str, Any]] = []

    def section(self, title: str, explanation: str) -> None:
        if self.as_json:
            self.steps.append({"step": title, "lines": []})
            return
        print(f"\n{title}")
        if explanation:
            print(f"   {explanation}")

    def line(self, text: str, **data: Any) -> None:
        if self.as_json:
            if data:
                self.steps[-1]["lines"].append(data)
            return
        print(f"   {text}")

    def finish(self) -> None:
        if self.as_json:
            print(json.dumps({"quickstart": self.steps}, indent=2, default=str))
