"""The SDK's event processor: EventHubConsumerClient with the blob checkpoint store, load balancing over
the hub's partitions, a checkpoint after every batch. Runs until SIGTERM (then closes, which releases its
claims) and prints one JSON line per happening:
  {"t": "open", "p": pid}                      on_partition_initialize
  {"t": "close", "p": pid, "reason": ...}      on_partition_close
  {"t": "ev", "p": pid, "s": seq, "b": body}   one per event
  {"t": "cp", "p": pid, "s": seq}              after each checkpoint
  {"t": "err", "p": pid|null, ...error}        on_error
  {"t": "stopped"}                             after close
Environment: EH_* (interop_common), STORAGE_CONNECTION, STORAGE_CONTAINER, PROCESSOR_LB_SECONDS (load-balancing
interval, default 1), PROCESSOR_EXPIRY_SECONDS (ownership expiry, default 6), PROCESSOR_GROUP ($Default)."""
import asyncio
import signal

from azure.eventhub.aio import EventHubConsumerClient
from azure.eventhub.extensions.checkpointstoreblobaio import BlobCheckpointStore

from interop_common import client_options, close_receiving, connection_string, emit, env, error_json, text


async def main():
    store = BlobCheckpointStore.from_connection_string(env("STORAGE_CONNECTION"), env("STORAGE_CONTAINER"))
    client = EventHubConsumerClient.from_connection_string(
        connection_string(),
        env("PROCESSOR_GROUP", "$Default"),
        checkpoint_store=store,
        load_balancing_interval=float(env("PROCESSOR_LB_SECONDS", "1")),
        partition_ownership_expiration_interval=float(env("PROCESSOR_EXPIRY_SECONDS", "6")),
        **client_options(retry_total=3),
    )

    async def on_batch(context, events):
        if not events:
            return
        for event in events:
            emit({"t": "ev", "p": context.partition_id, "s": event.sequence_number, "b": text(event.body_as_str())})
        await context.update_checkpoint(events[-1])
        emit({"t": "cp", "p": context.partition_id, "s": events[-1].sequence_number})

    async def on_open(context):
        emit({"t": "open", "p": context.partition_id})

    async def on_close(context, reason):
        emit({"t": "close", "p": context.partition_id, "reason": str(reason)})

    async def on_error(context, error):
        emit({"t": "err", "p": context.partition_id if context else None, **error_json(error)})

    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    task = asyncio.create_task(client.receive_batch(
        on_batch, max_batch_size=50, max_wait_time=0.5, starting_position="-1",
        on_partition_initialize=on_open, on_partition_close=on_close, on_error=on_error,
    ))
    await stop.wait()
    await close_receiving(client, task)
    await store.close()
    emit({"t": "stopped"})


asyncio.run(main())
