"""memoryd over the Model Context Protocol: tools and a resource for agent hosts.

``build_server`` makes the MCP server (official ``mcp`` SDK, ``MCPServer``); ``memoryd mcp``
runs it over stdio for one person, and ``memoryd serve`` mounts it at ``/mcp`` over
streamable HTTP (``memoryd.mcp.http``). Needs the ``mcp`` extra.
"""

from memoryd.mcp.server import build_server

__all__ = ["build_server"]
