"""The MCP server (``agent-memory mcp``): the memory tools for any MCP client.

``server`` holds the handlers (a thin layer over ``api.host.MemoryHost``), ``tokens`` the
bearer tokens of the HTTP transport, ``run`` the two transports. Needs the ``mcp`` extra
(``pip install 'agent-memory[mcp]'``).
"""
