"""Talks to an Event Hubs endpoint with azure-uamqp-c through python3-uamqp, used as shipped: AMQPS (uamqp
always wraps TCP in TLS; the test's certificate is passed as `verify`), SASL MSSBCBS and a $cbs put-token
per client (SASTokenAuth, a token computed here), sends to a hub and to a partition, $management reads,
receives with an offset filter, and the not-found and unauthorized errors. Prints each step's result as it
finishes (amqp_stacks_common.Report).
"""
import datetime
import time

from uamqp import AMQPClient, Message, ReceiveClient, SendClient, address, authentication, constants, errors

from amqp_stacks_common import SELECTOR_FILTER_NAME, TOKEN_LIFETIME_S, Report, parse_args, sas_token

TIMEOUT_MS = 5_000
CONSUMER_GROUP = '$Default'


def plain(value):
    """A JSON-friendly copy of a value decoded by uamqp, each scalar as {type: Python type, value}: uamqp
    decodes AMQP values to Python ones (strings and symbols to bytes), so only those types are visible."""
    if isinstance(value, dict):
        return {plain_key(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (bytes, bytearray)):
        return {'type': 'bytes', 'value': bytes(value).decode('utf-8', 'replace')}
    if isinstance(value, datetime.datetime):
        return {'type': 'datetime', 'value': value.timestamp() * 1000}
    return {'type': type(value).__name__, 'value': value}


def plain_key(key):
    return bytes(key).decode('utf-8', 'replace') if isinstance(key, (bytes, bytearray)) else str(key)


def text(value):
    if value is None:
        return None
    value = getattr(value, 'value', value)  # uamqp.constants.ErrorCodes members hold the condition symbol
    return bytes(value).decode('utf-8', 'replace') if isinstance(value, (bytes, bytearray)) else str(value)


def error_of(error):
    """The AMQP condition and description of a uamqp error, when it has them."""
    return {
        'error': f'{type(error).__name__}: {error}',
        'condition': text(getattr(error, 'condition', None)),
        'description': text(getattr(error, 'description', None)),
    }


class Endpoint:
    def __init__(self, args):
        self.args = args
        self.base = f'amqps://{args.host}:{args.port}'
        self.audience_base = f'sb://{args.host}:{args.port}'

    def auth(self, entity, key=None):
        """A SASTokenAuth for `entity` (uamqp puts one token per client, for its audience)."""
        audience = f'{self.audience_base}/{entity}'
        token = sas_token(audience, self.args.key_name, key or self.args.key)
        return authentication.SASTokenAuth(
            audience, self.audience_base, token, expires_at=time.time() + TOKEN_LIFETIME_S,
            port=self.args.port, verify=self.args.ca_file, timeout=TIMEOUT_MS // 1000,
            retry_policy=authentication.TokenRetryPolicy(retries=0),
        )

    def url(self, entity):
        return f'{self.base}/{entity}'


def reply_of(status, message, description):
    """A management reply in the proton client's shape: the C layer hands over the status code and description
    it read; the other application properties (error-condition) stay on the message."""
    properties = plain(message.application_properties or {}) if message is not None else {}
    properties['status-code'] = plain(status)
    properties['status-description'] = plain(description)
    return {'application_properties': properties, 'body': plain(message.get_data()) if message is not None else None}


def management_read(endpoint, hub, name, op_type, partition=None, key=None):
    properties = {'name': name}
    if partition is not None:
        properties['partition'] = partition
    client = AMQPClient(endpoint.url(hub), auth=endpoint.auth(hub, key), debug=endpoint.args.debug)
    try:
        client.open()
        return client.mgmt_request(
            Message(application_properties=properties), b'READ', op_type=op_type, node=b'$management',
            status_code_field=b'status-code', description_fields=b'status-description', timeout=TIMEOUT_MS,
            callback=reply_of,
        )
    finally:
        client.close()


def send(endpoint, entity, bodies):
    client = SendClient(
        endpoint.url(entity), auth=endpoint.auth(entity), debug=endpoint.args.debug, msg_timeout=TIMEOUT_MS,
    )
    try:
        for body in bodies:
            client.queue_message(Message(body.encode(), application_properties={'stack': 'uamqp'}))
        results = client.send_all_messages(close_on_done=False)
        # uamqp reports SendComplete only for an `accepted` outcome (a rejection is SendFailed).
        return ['accepted' if r == constants.MessageState.SendComplete else str(r) for r in results]
    finally:
        client.close()


def receive(endpoint, hub, partition_id, offset, count):
    entity = f'{hub}/ConsumerGroups/{CONSUMER_GROUP}/Partitions/{partition_id}'
    source = address.Source(endpoint.url(entity))
    # The uamqp-era azure-eventhub SDK's form: uamqp encodes the descriptor as the filter's symbol name.
    source.set_filter(f"amqp.annotation.x-opt-offset > '{offset}'".encode(), name=SELECTOR_FILTER_NAME.encode())
    client = ReceiveClient(
        source, auth=endpoint.auth(entity), debug=endpoint.args.debug, timeout=TIMEOUT_MS, prefetch=100,
    )
    events = []
    try:
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while len(events) < count and time.monotonic() < deadline:
            for message in client.receive_message_batch(max_batch_size=count - len(events), timeout=2000):
                events.append({
                    'body': b''.join(message.get_data()).decode('utf-8', 'replace'),
                    'application_properties': plain(message.application_properties),
                    'annotations': plain(message.annotations or {}),
                })
    finally:
        client.close()
    return events


def main():
    args = parse_args()
    report = Report()
    endpoint = Endpoint(args)
    hub = args.hub

    with report.step('put_token_wrong_key') as r:
        try:
            management_read(endpoint, hub, hub, b'com.microsoft:eventhub', key=args.key + 'x')
            r['error'] = 'read hub properties with a wrong key'
        except errors.TokenAuthFailure as error:
            # python3-uamqp keeps the status code of the put-token reply; the reply's description (the C layer
            # logs it) is replaced by a text of its own, so none is reported.
            r['refused'] = {
                'status_code': error.status_code, 'description': None, 'client_text': text(error.description),
            }

    with report.step('send_hub') as r:
        r['outcomes'] = send(endpoint, hub, [f'uamqp-hub-{args.run}-{i}' for i in range(2)])
    with report.step('send_partition') as r:
        r['outcomes'] = send(endpoint, f'{hub}/Partitions/0', [f'uamqp-p0-{args.run}-{i}' for i in range(3)])

    with report.step('receive_missing_hub') as r:
        try:
            events = receive(endpoint, args.missing_hub, '0', '-1', 1)
            r['error'] = f'attached and received {len(events)} events'
        except errors.AMQPError as error:
            r['detached'] = error_of(error)

    partition_ids = []
    with report.step('hub_properties') as r:
        r.update(management_read(endpoint, hub, hub, b'com.microsoft:eventhub'))
        partition_ids = [p['value'] for p in r['body']['partition_ids']]
    with report.step('partition_properties') as r:
        for partition_id in partition_ids:
            r[partition_id] = management_read(endpoint, hub, hub, b'com.microsoft:partition', partition=partition_id)
    with report.step('missing_hub_properties') as r:
        r.update(management_read(endpoint, hub, args.missing_hub, b'com.microsoft:eventhub'))

    # Read each partition from its start up to the last event its properties announced (no timeout to wait for).
    with report.step('receive_all') as r:
        for partition_id in partition_ids:
            last = report.steps['partition_properties'][partition_id]['body']['last_enqueued_sequence_number']['value']
            r[partition_id] = receive(endpoint, hub, partition_id, '-1', last + 1)
    with report.step('receive_after_first') as r:
        events = report.steps['receive_all']['0']
        r['from_offset'] = events[0]['annotations']['x-opt-offset']['value']
        r['events'] = receive(endpoint, hub, '0', r['from_offset'], len(events) - 1)


if __name__ == '__main__':
    main()
