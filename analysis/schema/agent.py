"""The engine's agent schema as data (agent.ts): an inline agent (`AGENT`), a reference to an
`.agent.yaml` (`AGENT_REF`), the `agents:` entry that is either (`AGENT_ENTRY`), and the MCP
servers an agent may call with the engine's per-transport refinements."""

from __future__ import annotations

import re

from analysis.document.yaml_nodes import YMapping, YSequence
from analysis.document.yaml_profile import INVALID_VALUE
from analysis.schema.ceilings import CHAIN_ENTRY_MAX_ATTEMPTS, FALLBACK_CHAIN_ENTRIES
from analysis.schema.common import (
    ID_LABEL,
    KEBAB_ID,
    NONEMPTY,
    POSITIVE_INT,
    RETRY,
    TEMPERATURE,
)
from analysis.schema.formats import Url, is_url
from analysis.schema.output_schema import OUTPUT_SCHEMA
from analysis.schema.vocabulary import (
    Boolean,
    Free,
    IfKey,
    MapOf,
    Number,
    Obj,
    Seq,
    Text,
    tag_of,
    tagged,
)
from analysis.schema.walk import MISSING_FIELD, UNKNOWN_KEY, Walk

PROVIDERS = ("anthropic", "openai", "gemini", "deepseek")
REASONING_EFFORTS = ("off", "low", "medium", "high", "max")
_MCP_INLINE = ("id", "transport", "command", "args", "env", "url", "allow_local_endpoint")
_URL_CREDENTIALS = re.compile(r"[a-z][a-z0-9+.-]*://[^/?#]*@", re.IGNORECASE)


def _mcp_extra(walk: Walk, node: YMapping, path: str) -> None:
    """The engine's McpServerRefSchema refinements: `ref` xor the inline connection fields, and
    per transport the connection field it needs and the ones it refuses."""
    def refuse(key: str, why: str) -> None:
        entry = node.get(key)
        if entry is not None:
            walk.report(UNKNOWN_KEY, entry.key, f"{path}: {why}", key=key)

    if node.get("ref") is not None:
        for key in _MCP_INLINE:
            refuse(key, f"'{key}' is not allowed with 'ref' (the [[mcp_servers]] registration "
                        "provides it); remove it, or drop 'ref' to declare the server inline")
        return
    for key in ("id", "transport"):
        if node.get(key) is None:
            walk.report(MISSING_FIELD, node.entries[0].key if node.entries else node,
                        f"{path}: an inline MCP server needs '{key}' (or use 'ref' to name a "
                        "[[mcp_servers]] registration)", field=key)
    transport = tag_of(node, "transport")
    url = node.get("url")
    if transport == "stdio":
        command = node.get("command")
        if command is None or getattr(command.value, "value", None) == "":
            walk.report(MISSING_FIELD, node.entries[0].key if node.entries else node,
                        f"{path}: the stdio transport needs a non-empty 'command'",
                        field="command")
        for key in ("url", "allow_local_endpoint"):
            refuse(key, f"'{key}' is not used by the stdio transport (network transports "
                        "only); remove it")
    elif transport in ("http", "sse", "websocket"):
        if url is None:
            walk.report(MISSING_FIELD, node.entries[0].key if node.entries else node,
                        f"{path}: the {transport} transport needs a 'url'", field="url")
        for key in ("command", "args", "env"):
            refuse(key, f"'{key}' is not used by the {transport} transport (it applies only to "
                        "a stdio server process); remove it")
        value = getattr(url.value, "value", None) if url is not None else None
        if isinstance(value, str) and is_url(value):
            scheme = "ws:// or wss://" if transport == "websocket" else "http:// or https://"
            if not re.match(r"wss?://" if transport == "websocket" else r"https?://", value,
                            re.IGNORECASE):
                walk.report(INVALID_VALUE, url.value,  # type: ignore[union-attr]
                            f"{path}.url '{value}' must start with {scheme} for the "
                            f"{transport} transport")
            elif _URL_CREDENTIALS.match(value):
                walk.report(INVALID_VALUE, url.value,  # type: ignore[union-attr]
                            f"{path}.url must not embed credentials (user:pass@…); use env or "
                            "keychain auth")


MCP_SERVER = Obj({
    "id": KEBAB_ID.described("The server's kebab-case id (namespaces its tools)."),
    "transport": Text(enum=("stdio", "http", "websocket", "sse"),
                      doc="How to reach the server (sse is a deprecated alias of http)."),
    "command": Text(doc="The program to start (stdio)."),
    "args": Seq(Text(), doc="Its arguments (stdio)."),
    "env": MapOf(Text(), doc="Environment variables for it (stdio)."),
    "url": Url(doc="The server's URL: http(s) for http/sse, ws(s) for websocket."),
    "allow_local_endpoint": Boolean(doc="Allow a private/loopback address (network "
                                        "transports)."),
    "ref": NONEMPTY.described("The name of a [[mcp_servers]] registration (instead of the "
                              "inline fields)."),
    "tools_allowlist": Seq(NONEMPTY, min_items=1,
                           empty_help=" (omit tools_allowlist to admit every tool)",
                           doc="The server's tools the agent may use (omit for all)."),
}, extra=_mcp_extra)


def _unique_mcp_ids(walk: Walk, node: YMapping, path: str) -> None:
    servers = node.get("mcp_servers")
    if servers is None or not isinstance(servers.value, YSequence):
        return
    seen: set[str] = set()
    for item in servers.value.items:
        entry = (item.get("ref") or item.get("id")) if isinstance(item, YMapping) else None
        identity = getattr(entry.value, "value", None) if entry is not None else None
        if entry is None or not isinstance(identity, str):
            continue
        if identity in seen:
            walk.report(INVALID_VALUE, entry.value,
                        f"{path}.mcp_servers: '{identity}' names two servers; MCP server ids "
                        "must be unique within an agent")
        seen.add(identity)


AGENT = Obj({
    "id": KEBAB_ID.described("The agent's kebab-case id, named by agent_ref."),
    "name": Text(doc="A display name."),
    "description": Text(doc="What the agent does."),
    "model": NONEMPTY.described("The model id sent to the provider."),
    "provider": Text(enum=PROVIDERS, doc="The LLM provider."),
    "system_prompt": NONEMPTY.described("The system prompt, sent verbatim (never interpolated)."),
    "temperature": TEMPERATURE.described("Sampling temperature, 0 to 2."),
    "max_tokens": POSITIVE_INT.described("Cap on generated tokens."),
    "reasoning_effort": Text(enum=REASONING_EFFORTS, doc="The reasoning tier: off, low, medium, "
                                                         "high, max."),
    "input_schema": MapOf(Free(), doc="A JSON Schema (subset) object for the turn's input."),
    "output_schema": OUTPUT_SCHEMA,
    "tools": Seq(NONEMPTY, doc="The tools the agent may call."),
    "mcp_servers": Seq(MCP_SERVER, doc="MCP servers whose tools the agent may call."),
    "memory": tagged("type", "The memory policy: none, summary or window.", {
        "none": ({}, ()), "summary": ({}, ()),
        "window": ({"window_size": POSITIVE_INT.described("How many turns are kept.")},
                   ("window_size",)),
    }).described("Conversational memory."),
    "retry": RETRY,
    "fallback_chain": Seq(Obj({
        "model": NONEMPTY.described("The alternate model."),
        "provider": Text(enum=PROVIDERS, doc="Its provider."),
        "max_attempts": Number(integer=True, minimum=1, maximum=CHAIN_ENTRY_MAX_ATTEMPTS,
                               ceiling=True, doc="Attempts on this model."),
    }, ("model", "provider", "max_attempts")), max_items=FALLBACK_CHAIN_ENTRIES,
        doc="Alternates tried in order after the primary model is exhausted (at most 5)."),
}, ("id", "model", "provider", "system_prompt"), extra=_unique_mcp_ids, label=ID_LABEL,
    doc="An inline agent.")
AGENT_REF = Obj({"$ref": NONEMPTY.described("The path of an .agent.yaml file.")}, ("$ref",),
                doc="A reference to an external .agent.yaml.")
AGENT_ENTRY = IfKey("$ref", AGENT_REF, AGENT)
