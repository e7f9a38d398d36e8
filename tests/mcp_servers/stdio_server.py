"""A tiny MCP server for the tests, over stdio: ``add`` answers, ``explode`` raises."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("test-tools")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def explode(reason: str = "boom") -> str:
    """Always fails."""
    raise ValueError(f"it blew up: {reason}")


if __name__ == "__main__":
    server.run("stdio")
