"""Shared by the interop scripts: Azure SDK for Python clients pointed at the emulator, JSON on stdout.

The scripts use the SDK as Debian ships it (azure-eventhub 5.11.0), unmodified. How it reaches the emulator:
the connection string's Endpoint names the host without a port (sb://127.0.0.1), so the SDK's fully qualified
namespace, and with it the checkpoint store's blob names, is `127.0.0.1` as the JS and .NET SDKs spell it;
`custom_endpoint_address` names the port. In 5.11 a custom endpoint always means AMQP over WebSockets
(`_configuration.py`), so that port is the emulator's `wss` port, and `connection_verify` names the
emulator's throw-away CA certificate. The asyncio API is used: its WebSocket transport is aiohttp, which
python3-azure depends on; the sync one needs websocket-client, which it does not.
"""
import asyncio
import base64
import datetime
import json
import os
import sys
import uuid


def env(name, default=None):
    value = os.environ.get(name, default)
    if value is None:
        sys.exit(f"environment variable {name} is required")
    return value


def connection_string(**overrides):
    """The port-less connection string from EH_CONNECTION, with keys replaced (EntityPath=..., SharedAccessKey=...)."""
    parts = [p for p in env("EH_CONNECTION").split(";") if p]
    pairs = [p.split("=", 1) for p in parts]
    keys = {k.lower() for k, _ in pairs}
    out = []
    for key, value in pairs:
        if key.lower() in {o.lower() for o in overrides}:
            value = next(v for o, v in overrides.items() if o.lower() == key.lower())
        out.append(f"{key}={value}")
    out += [f"{k}={v}" for k, v in overrides.items() if k.lower() not in keys]
    return ";".join(out)


def client_options(**extra):
    options = {
        "custom_endpoint_address": env("EH_CUSTOM_ENDPOINT"),
        "connection_verify": env("EH_CA_CERT"),
        "retry_total": int(env("EH_RETRY_TOTAL", "0")),
    }
    options.update(extra)
    return options


def typed(value):
    """A JSON form of a value that keeps its Python type: {"type": ..., "value": ...}."""
    if value is None:
        return {"type": "None", "value": None}
    if isinstance(value, bool):
        return {"type": "bool", "value": value}
    if isinstance(value, int):
        return {"type": "int", "value": str(value)}
    if isinstance(value, float):
        return {"type": "float", "value": value}
    if isinstance(value, str):
        return {"type": "str", "value": value}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"type": "bytes", "value": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, uuid.UUID):
        return {"type": "uuid", "value": str(value)}
    if isinstance(value, datetime.datetime):
        return {"type": "datetime", "value": value.isoformat()}
    return {"type": type(value).__name__, "value": repr(value)}


def text(value):
    """Keys and some values arrive as bytes from the pure-Python AMQP stack: as text for JSON."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    return value


def epoch_ms(value):
    if value is None:
        return None
    if isinstance(value, datetime.datetime):
        return int(value.timestamp() * 1000)
    return value


def event_json(event, partition_id):
    """One received EventData, every section the SDK exposes."""
    body = event.body
    if isinstance(body, (bytes, bytearray)):
        raw = bytes(body)
    else:
        raw = b"".join(bytes(b) for b in body)
    properties = {text(k): typed(v) for k, v in (event.properties or {}).items()}
    return {
        "partition": partition_id,
        "sequence_number": event.sequence_number,
        "offset": event.offset,
        "enqueued_time": epoch_ms(event.enqueued_time),
        "partition_key": text(event.partition_key),
        "body_type": str(event.body_type),
        "body": base64.b64encode(raw).decode("ascii"),
        "properties": properties,
        "message_id": text(event.message_id),
        "content_type": text(event.content_type),
        "correlation_id": text(event.correlation_id),
    }


def error_json(error):
    return {
        "type": type(error).__name__,
        "classes": [c.__name__ for c in type(error).__mro__],
        "message": str(error),
    }


async def close_receiving(client, task):
    """Closes a consumer client and ends its receive task. Once closed, receive() and receive_batch() return
    only after their load-balancing sleep (10 s by default): nothing is left to wait for, so cancel it. An
    error the task ended with was reported through on_error already."""
    await client.close()
    task.cancel()
    try:
        await task
    except (asyncio.CancelledError, Exception):  # noqa: BLE001
        pass


def emit(obj):
    print(json.dumps(obj), flush=True)
