"""Print the README's settings table from core.config, the single source of the settings.

.venv/bin/python scripts/settings_table.py
"""

import json

from agent_memory.core.config import settings

print("| setting | default | environment variable | what it does |")
print("|---|---|---|---|")
for s in settings():
    print(f"| `{s.name}` | `{json.dumps(s.default)}` | `{s.env}` | {s.help} |")
