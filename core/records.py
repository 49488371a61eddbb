"""Compatibility path: the record statements live in core.store.records.

Kept only for the modules that still compose their own record statements (core.ingestor,
core.importer, core.session, core.supersession; tests/test_architecture.py lists them as moving
next). Delete this file when they import agent_memory.core.store.records.
"""

from agent_memory.core.store.log import append_event
from agent_memory.core.store.records import (
    RECORD_SELECT,
    NewRecord,
    bump_records_version,
    changed,
    embedding_text,
    fts_content,
    insert_record,
    record_alias_text,
    row_to_record,
    select_records,
)

__all__ = [
    "RECORD_SELECT",
    "NewRecord",
    "append_event",
    "bump_records_version",
    "changed",
    "embedding_text",
    "fts_content",
    "insert_record",
    "record_alias_text",
    "row_to_record",
    "select_records",
]
