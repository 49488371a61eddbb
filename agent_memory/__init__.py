"""agent-memory: durable, attributable, scoped memory for LLM agents.

The distribution's one top-level package. The library lives in ``agent_memory.core`` (the host
API: ``from agent_memory.core import Memory``), the Huey worker in ``agent_memory.workers`` and
the CLI, adapters and evaluation in ``agent_memory.api``.

The three folders stay at the repository's root, as the design names them; pyproject.toml's
package-dir installs them under this package. The symlinks beside this file give the same view
to a checkout that runs without installing (and to mypy, which cannot follow setuptools'
editable-install import hook).
"""
