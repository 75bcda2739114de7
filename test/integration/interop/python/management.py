"""Management reads through the SDK: hub properties, partition ids, each partition's properties (JSON)."""
import asyncio

from azure.eventhub.aio import EventHubConsumerClient

from interop_common import client_options, connection_string, emit, epoch_ms


async def main():
    client = EventHubConsumerClient.from_connection_string(connection_string(), "$Default", **client_options())
    async with client:
        hub = await client.get_eventhub_properties()
        ids = await client.get_partition_ids()
        partitions = []
        for pid in ids:
            p = await client.get_partition_properties(pid)
            partitions.append({**p, "last_enqueued_time_utc": epoch_ms(p["last_enqueued_time_utc"])})
    emit({"hub": {**hub, "created_at": epoch_ms(hub["created_at"])}, "partition_ids": ids, "partitions": partitions})


asyncio.run(main())
