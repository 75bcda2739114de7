"""What the SDK raises for a misconfiguration, per operation (JSON). Usage: errors.py CASE
CASE: wrong-hub (EntityPath names no hub), wrong-consumer-group (CONSUMER_GROUP arg), wrong-key (SharedAccessKey)."""
import asyncio
import logging
import sys

from azure.eventhub import EventData
from azure.eventhub.aio import EventHubConsumerClient, EventHubProducerClient

from interop_common import client_options, close_receiving, connection_string, emit, error_json, text

RECEIVE_WAIT_SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 8


async def management(conn):
    client = EventHubProducerClient.from_connection_string(conn, **client_options())
    async with client:
        try:
            await client.get_eventhub_properties()
            return {"ok": True}
        except Exception as error:  # noqa: BLE001 - what the SDK raises is the finding
            return error_json(error)


async def send(conn):
    client = EventHubProducerClient.from_connection_string(conn, **client_options())
    async with client:
        try:
            await client.send_event(EventData("x"), partition_id="0")
            return {"ok": True}
        except Exception as error:  # noqa: BLE001
            return error_json(error)


class LinkErrors(logging.Handler):
    """The errors of the Detach frames the SDK receives, from its own frame trace (logging_enable=True)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.errors = []

    def emit(self, record):
        frame = record.args[0] if isinstance(record.args, tuple) and record.args else None
        if type(frame).__name__ == "DetachFrame" and frame.error:
            self.errors.append({"condition": text(frame.error[0]), "description": text(frame.error[1])})


async def receive(conn, group):
    """The first error the receive loop reports through on_error for partition 0, and the link errors the
    SDK received meanwhile (5.11 does not always pass them on: see the TS test)."""
    seen = asyncio.get_running_loop().create_future()
    link_errors = LinkErrors()
    link_logger = logging.getLogger("azure.eventhub._pyamqp.aio._link_async")
    link_logger.setLevel(logging.DEBUG)
    link_logger.addHandler(link_errors)

    async def on_event(_context, _event):
        pass

    async def on_error(context, error):
        if not seen.done():
            seen.set_result({"partition": context.partition_id if context else None, **error_json(error)})

    client = EventHubConsumerClient.from_connection_string(conn, group, **client_options(logging_enable=True))
    task = asyncio.create_task(client.receive(on_event, on_error=on_error, partition_id="0", starting_position="-1"))
    try:
        result = await asyncio.wait_for(seen, RECEIVE_WAIT_SECONDS)
    except asyncio.TimeoutError:
        result = {"ok": True, "note": f"no error within {RECEIVE_WAIT_SECONDS} s"}
    await close_receiving(client, task)
    link_logger.removeHandler(link_errors)
    return {**result, "link_errors": link_errors.errors[:3], "link_error_count": len(link_errors.errors)}


async def main():
    case = sys.argv[1]
    if case == "wrong-hub":
        conn = connection_string(EntityPath=sys.argv[2])
        emit({"management": await management(conn), "send": await send(conn), "receive": await receive(conn, "$Default")})
    elif case == "wrong-consumer-group":
        emit({"receive": await receive(connection_string(), sys.argv[2])})
    elif case == "wrong-key":
        conn = connection_string(SharedAccessKey=sys.argv[2])
        emit({"management": await management(conn), "send": await send(conn), "receive": await receive(conn, "$Default")})
    else:
        sys.exit(f"unknown case {case}")


asyncio.run(main())
