"""Framework adapters: each translates ``api.host.MemoryHost`` into one framework's terms.

``api.adapters.deepagents`` (extra ``deepagents``: LangChain / LangGraph / Deep Agents),
``api.adapters.langgraph`` (the same extra: a LangGraph ``BaseStore`` over the records) and
``api.adapters.crewai`` (extra ``crewai``, its own virtual environment: crewai pins an older
pydantic). Import the module you need; this package imports neither framework.
"""
