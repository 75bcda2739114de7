"""Receives COUNT events from every partition, from the start, and prints them (JSON).
Usage: receive.py COUNT TIMEOUT_SECONDS [CONSUMER_GROUP]"""
import asyncio
import sys

from azure.eventhub.aio import EventHubConsumerClient

from interop_common import client_options, close_receiving, connection_string, emit, error_json, event_json


async def main():
    count, timeout = int(sys.argv[1]), float(sys.argv[2])
    group = sys.argv[3] if len(sys.argv) > 3 else "$Default"
    events, errors = [], []
    done = asyncio.Event()

    async def on_event(context, event):
        if event is None:
            return
        events.append(event_json(event, context.partition_id))
        if len(events) >= count:
            done.set()

    async def on_error(context, error):
        errors.append({"partition": context.partition_id if context else None, **error_json(error)})

    client = EventHubConsumerClient.from_connection_string(connection_string(), group, **client_options())
    task = asyncio.create_task(client.receive(on_event, on_error=on_error, starting_position="-1"))
    try:
        await asyncio.wait_for(done.wait(), timeout)
    except asyncio.TimeoutError:
        pass
    await close_receiving(client, task)
    emit({"events": events, "errors": errors})


asyncio.run(main())
