"""A stdio MCP server whose one tool asks the person a question by MCP elicitation (a
form with one field, ``branch``) and returns what came back: the conformance tests'
stand-in for any MCP server that elicits. It speaks the handshake era (the SDK's
``serve_loop``), where a server may send the client a request in the middle of a call."""

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from pydantic import BaseModel

server = MCPServer("asker")


class Branch(BaseModel):
    branch: str


@server.tool()
async def pick_branch(ctx: Context) -> str:
    """Ask which branch to deploy."""
    result = await ctx.elicit("Which branch should I deploy?", Branch)
    data = getattr(result, "data", None)
    return f"action={result.action} branch={data.branch if data else None}"


async def main() -> None:
    low = server._lowlevel_server  # MCPServer.run() would also serve the 2026-07-28 era
    async with stdio_server() as (read, write), low.lifespan(low) as state:
        await serve_loop(low, read, write, lifespan_state=state, init_options=low.create_initialization_options())


anyio.run(main)
