/**
 * A minimal stdio MCP server in Python (newline-delimited JSON-RPC: initialize, tools/list,
 * tools/call), for tests to drop into a workspace: the sandbox images have python3, and no
 * package is needed. `whoami` tells where it runs; `crash` makes the server exit mid-call.
 */
export const PYTHON_MCP_SERVER = String.raw`
import json, os, socket, sys

def reply(mid, result=None, error=None):
    body = {"jsonrpc": "2.0", "id": mid}
    body["error" if error else "result"] = error or result
    sys.stdout.write(json.dumps(body) + "\n")
    sys.stdout.flush()

TOOLS = [{
    "name": "whoami",
    "description": "Says where the server runs",
    "inputSchema": {"type": "object", "properties": {"greeting": {"type": "string"}}, "required": ["greeting"]},
}, {
    "name": "crash",
    "description": "Exits without answering",
    "inputSchema": {"type": "object", "properties": {}},
}]

for line in sys.stdin:
    msg = json.loads(line)
    mid, method = msg.get("id"), msg.get("method")
    if mid is None:
        continue  # a notification
    if method == "initialize":
        reply(mid, {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                    "serverInfo": {"name": "py-fixture", "version": "1.0.0"}})
    elif method == "tools/list":
        reply(mid, {"tools": TOOLS})
    elif method == "tools/call" and msg["params"]["name"] == "crash":
        sys.stderr.write("crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    elif method == "tools/call":
        args = msg["params"].get("arguments") or {}
        text = "%s from %s uid %d cwd %s token %s" % (args.get("greeting"), socket.gethostname(), os.getuid(), os.getcwd(), os.environ.get("FIXTURE_TOKEN", "-"))
        reply(mid, {"content": [{"type": "text", "text": text}]})
    else:
        reply(mid, error={"code": -32601, "message": "no method " + str(method)})
`;
