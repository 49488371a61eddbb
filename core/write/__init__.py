"""The write path (design §6): the Ingestor and everything a record passes on its way in.

- ingestor.py     ``Ingestor.write``: the stages in order, each timed (core.timing)
- drafts.py       the write's request and outcome, and the draft record built from them
- evidence.py     whether a quote backs the claimed source; the observation's witness
- entities.py     ``about`` mentions resolved to entities (exact alias, else a new one)
- dedup.py        neighbours, duplicates, contradictions, stale records and write races
- reinforce.py    what a duplicate does instead: an observation, confidence, promotion
- supersession.py the rule that settles a record against the live records it meets
- stale.py        the older records a user's newer words contradict, of any type
- importer.py     bulk import (host provisioning: no evidence check, no dedup)
- conversation.py a conversation's turns imported as episodic records

Every statement these run is a core.store function; nothing here writes SQL.
"""
