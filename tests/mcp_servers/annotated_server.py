"""A tiny MCP server for the confirmation tests, over stdio: a tool that says it is read-only,
one that says it is destructive, and one that says nothing (as Home Assistant's tools do)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("annotated-tools")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def get_state(entity: str) -> str:
    """The state of an entity."""
    return f"{entity} is locked"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def unlock(entity: str) -> str:
    """Unlock an entity."""
    return f"{entity} unlocked"


@server.tool()
def turn_on(entity: str) -> str:
    """Turn an entity on."""
    return f"{entity} on"


if __name__ == "__main__":
    server.run("stdio")
