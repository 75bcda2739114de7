"""The SDK's asyncio BlobCheckpointStore on its own (JSON out). Usage:
  checkpoint_store.py update NAMESPACE HUB GROUP PARTITION SEQUENCE_NUMBER OFFSET
  checkpoint_store.py list NAMESPACE HUB GROUP
Environment: STORAGE_CONNECTION, STORAGE_CONTAINER."""
import asyncio
import sys

from azure.eventhub.extensions.checkpointstoreblobaio import BlobCheckpointStore

from interop_common import emit, env


async def main():
    store = BlobCheckpointStore.from_connection_string(env("STORAGE_CONNECTION"), env("STORAGE_CONTAINER"))
    async with store:
        command, namespace, hub, group = sys.argv[1:5]
        if command == "update":
            partition, sequence_number, offset = sys.argv[5:8]
            await store.update_checkpoint({
                "fully_qualified_namespace": namespace, "eventhub_name": hub, "consumer_group": group,
                "partition_id": partition, "sequence_number": int(sequence_number), "offset": offset,
            })
        emit({"checkpoints": await store.list_checkpoints(namespace, hub, group),
              "ownership": await store.list_ownership(namespace, hub, group)})


asyncio.run(main())
