"""The evaluation harnesses behind ``agent-memory eval`` (and the benchmarks that reuse them).

- ``retrieval``: LoCoMo and LongMemEval-S, recall of the labelled evidence through
  memory_search (``--dataset locomo|longmemeval|all``); ``datasets`` reads their files.
- ``personal``: a user's everyday chats, each persona in a store of its own, extracted and as
  turns (``--dataset personal``); ``personas`` reads the file.
- ``metrics``: the figures of both from their answers.
- ``calibrate``: the gate's floors swept over what the searches logged (``--calibrate``).
- ``judge``: the evidence judge on labelled quote/content pairs (``--dataset judge``).

Evaluation data paths are always arguments: nothing here knows where a data set lives.
"""
