"""What the MCP tests of both transports (stdio and streamable HTTP) expect alike."""

from __future__ import annotations

# Every tool memoryd's MCP server offers (docs/mcp.md lists the same).
TOOLS = frozenset(
    {
        "remember",
        "recall",
        "list_memories",
        "get_memory",
        "update_memory",
        "forget",
        "promote",
        "demote",
        "record_exchange",
        "delete_exchange",
    }
)
