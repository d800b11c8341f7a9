"""Drives the official Python MCP SDK client (`mcp` 2.3) against the built rxmcp demo.

Run by client.test.ts from a temporary virtualenv. Usage:
    client.py stdio <node> <demo main.js> <mode>
    client.py http <streamable http url> <mode>
where <mode> is the SDK's connect mode: 'legacy', 'auto' or a modern version ('2026-07-28').

Prints one JSON object per line on stdout; the Node side asserts on them. The approval
round trip answers delete_note's question with decline first, then accept, then asks again
for the same note, so a run that happens more than once (or not at all) shows in the lines.
"""

import json
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def emit(event: str, **fields: object) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


def text_of(result: types.CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def run(target: StdioServerParameters | str, mode: str) -> None:
    questions: list[dict[str, object]] = []
    answers: list[types.ElicitResult] = []

    async def on_elicit(_context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        questions.append(params.model_dump(by_alias=True, exclude_none=True))
        return answers.pop(0)

    async with Client(target, mode=mode, elicitation_callback=on_elicit, read_timeout_seconds=10) as client:
        # Count the InputRequiredResults the SDK's multi-round-trip driver gets back, so the
        # lines show which path asked: MRTR (modern) or a server-sent elicitation/create (legacy).
        session = client.session
        plain_call_tool = session.call_tool
        input_required = [0]

        async def counting_call_tool(*args: Any, **kwargs: Any) -> Any:
            result = await plain_call_tool(*args, **kwargs)
            if isinstance(result, types.InputRequiredResult):
                input_required[0] += 1
            return result

        session.call_tool = counting_call_tool  # type: ignore[method-assign]
        emit("connected", protocolVersion=client.protocol_version, server=client.server_info.name if client.server_info else None)
        tools = await client.list_tools()
        emit("tools", names=sorted(tool.name for tool in tools.tools))
        echoed = await client.call_tool("echo", {"text": "from python"})
        emit("echo", text=text_of(echoed), isError=bool(echoed.is_error))

        for answer in (
            types.ElicitResult(action="decline"),
            types.ElicitResult(action="accept", content={"approve": True}),
            types.ElicitResult(action="accept", content={"approve": True}),
        ):
            answers.append(answer)
            result = await client.call_tool("delete_note", {"id": "1"})
            emit("delete_note", answer=answer.action, isError=bool(result.is_error), text=text_of(result), questions=len(questions), inputRequired=input_required[0])
        emit("question", **questions[0])
    emit("closed")


async def bounded(target: StdioServerParameters | str, mode: str) -> None:
    with anyio.fail_after(30):
        await run(target, mode)


def main(argv: list[str]) -> None:
    if argv[0] == "stdio":
        node, demo, mode = argv[1:4]
        target: StdioServerParameters | str = StdioServerParameters(command=node, args=[demo, "--stdio"])
    else:
        target, mode = argv[1], argv[2]
    anyio.run(bounded, target, mode)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except BaseException as error:  # noqa: BLE001 - report every failure as a line the test can show
        emit("error", type=type(error).__name__, message=str(error))
        sys.exit(1)
