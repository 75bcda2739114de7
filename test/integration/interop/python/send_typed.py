"""Sends events with every application-property type the SDK can encode, message properties and a
partition key; prints what it sent (JSON). Usage: send_typed.py PARTITION_ID PARTITION_KEY"""
import asyncio
import datetime
import sys
import uuid

from azure.eventhub import EventData
from azure.eventhub.aio import EventHubProducerClient

from interop_common import client_options, connection_string, emit, error_json, typed

# pyamqp encodes a Python int as an AMQP int (32 bits) and refuses larger ones (ValueError), so a long needs
# its typed form, the {"TYPE", "VALUE"} dict the SDK's own encoder takes (azure/eventhub/_pyamqp/types.py).
LONG = 2**40 + 5


def typed_properties():
    return {
        "str": "värde ✓",
        "int": 42,
        "negative_int": -7,
        "int32_max": 2_147_483_647,
        "long": {"TYPE": "LONG", "VALUE": LONG},
        "float": 3.25,
        "bool_true": True,
        "bool_false": False,
        "bytes": b"\x00\x01\xfe\xff",
        "none": None,
        "uuid": uuid.UUID("12345678-1234-5678-9abc-def012345678"),
        "datetime": datetime.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=datetime.timezone.utc),
    }


def described(props):
    out = {}
    for key, value in props.items():
        out[key] = {"type": "long", "value": str(value["VALUE"])} if isinstance(value, dict) else typed(value)
    return out


async def main():
    partition_id, partition_key = sys.argv[1], sys.argv[2]
    sent = []
    producer = EventHubProducerClient.from_connection_string(connection_string(), **client_options())
    async with producer:
        # A plain int beyond 32 bits: refused by the SDK before anything is sent (recorded, not sent).
        big = EventData("x")
        big.properties = {"long": LONG}
        long_plain = None
        try:
            probe = await producer.create_batch(partition_id=partition_id)
            probe.add(big)
        except Exception as error:  # noqa: BLE001 - what the SDK raises is the finding
            long_plain = error_json(error)

        batch = await producer.create_batch(partition_id=partition_id)
        first = EventData("text body: ü ✓")
        first.properties = typed_properties()
        first.message_id = "message-1"
        first.content_type = "text/plain; charset=utf-8"
        first.correlation_id = "correlation-1"
        batch.add(first)
        second = EventData(b"\x00\xffbinary\x10")
        second.message_id = "message-2"
        second.content_type = "application/octet-stream"
        batch.add(second)
        third = EventData('{"records":[{"category":"Test","n":1}]}')
        third.content_type = "application/json"
        third.properties = {"kind": "json"}
        batch.add(third)
        await producer.send_batch(batch)
        sent.append({"partition_id": partition_id, "body": "text body: ü ✓", "properties": described(typed_properties()),
                     "message_id": "message-1", "content_type": "text/plain; charset=utf-8",
                     "correlation_id": "correlation-1"})

        keyed = await producer.create_batch(partition_key=partition_key)
        for n in range(2):
            event = EventData(f"keyed {n}")
            event.properties = {"n": n}
            keyed.add(event)
        await producer.send_batch(keyed)
        # send_event: a single event, not a batch.
        single = EventData("single")
        single.properties = {"single": True}
        await producer.send_event(single, partition_id=partition_id)
    emit({"sent": sent, "long_plain_int": long_plain})


asyncio.run(main())
