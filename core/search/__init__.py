"""The Retriever (design §7): memory_search's pipeline and its parts.

- ``retriever``: ``Retriever.search``, the stages in order, each timed (``compound``: a
  question that asks several things, searched as its parts);
- ``request``: ``SearchRequest`` (a validated call) and ``Search`` (one search's state);
- ``generators``: the dense, lexical, entity and time candidates, the hard filter inside each;
- ``ranking``: the decision stages as pure functions of what the log keeps (fusion,
  freshness, context credit, the gate, collapse, budget) and ``replay``;
- ``bm25`` (FTS5's BM25 computed in memory) and ``lexical`` (query words, FTS5 queries, word
  statistics; its private in-memory SQLite tokenizer is the one SQL outside core.store);
- ``duplicates``: the near-duplicate pairs the collapse reads;
- ``explain``: the full explanation, the log payload, and the compact form a model reads;
- ``rerank`` and ``rewrite``: the optional stages; ``tokens``: the budget's token counts.

Nothing is imported here: core.store reads core.search.lexical's column names, and the
retriever imports core.store, so this package's ``__init__`` stays empty of imports.
"""
