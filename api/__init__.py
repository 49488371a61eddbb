"""The surfaces over core: the command line now; framework adapters, HTTP and MCP later.

No business logic lives here.
"""
