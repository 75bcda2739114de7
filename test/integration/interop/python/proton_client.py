"""Talks to an Event Hubs endpoint with Apache Qpid Proton (python3-qpid-proton), used as shipped: SASL,
$cbs put-token with a SAS token, sends to a hub and to a partition, $management reads, receives with an
offset filter, and the not-found and unauthorized errors; plain TCP, or AMQPS verified against `--ca-file`.
Prints each step's result as it finishes (amqp_stacks_common.Report).
"""
import uuid

from proton import Delivery, Described, Message, SSLDomain, Timeout, symbol, ulong
from proton.reactor import Filter, Selector
from proton.utils import BlockingConnection, LinkDetached

from amqp_stacks_common import SAS_TOKEN_TYPE, SELECTOR_FILTER_CODE, SELECTOR_FILTER_NAME, Report, parse_args, sas_token

TIMEOUT_S = 10
AMQP_OUTCOMES = {Delivery.ACCEPTED: 'accepted', Delivery.REJECTED: 'rejected', Delivery.RELEASED: 'released'}
# Python classes proton decodes AMQP types to, by the AMQP type's name.
AMQP_TYPE_NAMES = {'str': 'string', 'int': 'long', 'int32': 'int', 'uint': 'uint', 'ulong': 'ulong',
                   'timestamp': 'timestamp', 'symbol': 'symbol', 'float': 'double', 'bool': 'boolean'}
CONSUMER_GROUP = '$Default'


def plain(value):
    """A JSON-friendly copy of a decoded AMQP value that keeps the AMQP type of scalars visible."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, 'elements'):  # proton.Array
        return [plain(v) for v in value.elements]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode('utf-8', 'replace')
    if isinstance(value, bool) or value is None:
        return value
    kind = type(value).__name__
    return {'type': AMQP_TYPE_NAMES.get(kind, kind), 'value': value if isinstance(value, (int, float)) else str(value)}


def condition_of(error):
    """The AMQP error a LinkDetached carries: its link's remote condition."""
    condition = error.link.remote_condition
    if condition is None:
        return {}
    return {'condition': str(condition.name), 'description': condition.description}


def settle(receiver):
    """Accepts the message just received unless the sender settled it already (BlockingReceiver.accept()
    assumes an unsettled delivery and fails on a pre-settled one)."""
    if receiver.fetcher.unsettled:
        receiver.accept()


class RequestResponse:
    """A request link and a reply link to `$cbs` or `$management`; replies are addressed by link name."""

    def __init__(self, connection, node):
        self.reply_to = f'{node}-reply-{uuid.uuid4()}'
        self.receiver = connection.create_receiver(node, name=self.reply_to, credit=10)
        self.sender = connection.create_sender(node)

    def call(self, application_properties, body):
        message_id = str(uuid.uuid4())
        self.sender.send(
            Message(id=message_id, reply_to=self.reply_to, properties=application_properties, body=body),
            timeout=TIMEOUT_S,
        )
        reply = self.receiver.receive(timeout=TIMEOUT_S)
        settle(self.receiver)
        return {
            'correlation_id': str(reply.correlation_id),
            'application_properties': plain(dict(reply.properties or {})),
            'body': plain(reply.body),
        }


def offset_filter(offset, stock_selector=False):
    """The start position as Event Hubs clients write it (keyed and described by the selector filter's name and
    code), or with proton's own `Selector` option (keyed `selector`, described by the symbol)."""
    expression = f"amqp.annotation.x-opt-offset > '{offset}'"
    if stock_selector:
        return Selector(expression)
    return Filter({symbol(SELECTOR_FILTER_NAME): Described(ulong(SELECTOR_FILTER_CODE), expression)})


def send(connection, entity, bodies):
    """Sends each body as one data section and returns the outcomes (BlockingSender.send raises on a rejection)."""
    sender = connection.create_sender(entity)
    outcomes = []
    for i, body in enumerate(bodies):
        delivery = sender.send(
            Message(body=body.encode(), inferred=True, properties={'stack': 'proton', 'i': i}), timeout=TIMEOUT_S,
        )
        outcomes.append(AMQP_OUTCOMES.get(delivery.remote_state, str(delivery.remote_state)))
    sender.close()
    return outcomes


def receive_events(connection, hub, partition_id, offset, count, stock_selector=False):
    receiver = connection.create_receiver(
        f'{hub}/ConsumerGroups/{CONSUMER_GROUP}/Partitions/{partition_id}', credit=100,
        options=offset_filter(offset, stock_selector),
    )
    events = []
    try:
        while len(events) < count:
            message = receiver.receive(timeout=TIMEOUT_S)
            settle(receiver)
            events.append({
                'body': plain(message.body),
                'application_properties': plain(dict(message.properties or {})),
                'annotations': plain(dict(message.annotations or {})),
            })
    except Timeout:
        pass
    receiver.close()
    return events


class Client:
    """One AMQP connection with its $cbs request-response pair."""

    def __init__(self, args):
        self.args = args
        self.endpoint = f'sb://{args.host}:{args.port}'
        ssl_domain = None
        if args.tls:
            ssl_domain = SSLDomain(SSLDomain.MODE_CLIENT)
            ssl_domain.set_trusted_ca_db(args.ca_file)
            ssl_domain.set_peer_authentication(SSLDomain.VERIFY_PEER)
        # Proton's built-in SASL (no Cyrus SASL here) offers ANONYMOUS without credentials, PLAIN with them.
        self.connection = BlockingConnection(
            f"{'amqps' if args.tls else 'amqp'}://{args.host}:{args.port}", timeout=TIMEOUT_S, ssl_domain=ssl_domain,
            sasl_enabled=True, allowed_mechs='ANONYMOUS',
        )
        self.cbs = RequestResponse(self.connection, '$cbs')

    def claim(self, entity, key=None):
        """Puts a SAS token for `entity` (audience sb://host:port/<entity>), as the Azure SDKs do before each link."""
        audience = f'{self.endpoint}/{entity}'
        return self.cbs.call(
            {'operation': 'put-token', 'name': audience, 'type': SAS_TOKEN_TYPE},
            sas_token(audience, self.args.key_name, key or self.args.key),
        )

    def close(self):
        self.connection.close()


class Refused(Exception):
    """A link the service refused, with the AMQP condition and description of its detach."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


def receive_step(args, r, hub, partition_id, offset, count, stock_selector=False):
    """Receives on a connection of its own, so that a failure cannot spoil the other steps."""
    client = Client(args)
    try:
        r['claim'] = client.claim(f'{hub}/ConsumerGroups/{CONSUMER_GROUP}/Partitions/{partition_id}')
        return receive_events(client.connection, hub, partition_id, offset, count, stock_selector)
    except LinkDetached as error:
        raise Refused(condition_of(error)) from None  # read the condition before the connection is freed
    finally:
        client.close()


def main():
    args = parse_args()
    report = Report()
    hub = args.hub
    client = None
    with report.step('connect') as r:
        client = Client(args)
        r['ok'] = True
    if client is None:
        return
    with report.step('put_token_wrong_key') as r:
        reply = client.claim(hub, key=args.key + 'x')['application_properties']
        r['refused'] = {
            'status_code': reply['status-code']['value'],
            'description': reply['status-description']['value'],
            'condition': reply.get('error-condition', {}).get('value'),
        }
    with report.step('put_token_hub') as r:
        r.update(client.claim(hub))
    with report.step('send_hub') as r:
        r['outcomes'] = send(client.connection, hub, [f'proton-hub-{args.run}-{i}' for i in range(2)])
    with report.step('send_partition') as r:
        r['claim'] = client.claim(f'{hub}/Partitions/0')
        r['outcomes'] = send(client.connection, f'{hub}/Partitions/0', [f'proton-p0-{args.run}-{i}' for i in range(3)])

    with report.step('receive_missing_hub') as r:
        try:
            events = receive_step(args, r, args.missing_hub, '0', '-1', 1)
            r['error'] = f'attached and received {len(events)} events'
        except Refused as refused:
            r['detached'] = refused.error

    management = None
    with report.step('management_link') as r:
        r['claim'] = client.claim(f'{hub}/$management')
        management = RequestResponse(client.connection, '$management')
    partition_ids = []
    with report.step('hub_properties') as r:
        r.update(management.call({'operation': 'READ', 'name': hub, 'type': 'com.microsoft:eventhub'}, None))
        partition_ids = [p['value'] for p in r['body']['partition_ids']]
    with report.step('partition_properties') as r:
        for partition_id in partition_ids:
            r[partition_id] = management.call(
                {'operation': 'READ', 'name': hub, 'type': 'com.microsoft:partition', 'partition': partition_id}, None,
            )
    with report.step('missing_hub_properties') as r:
        r.update(management.call(
            {'operation': 'READ', 'name': args.missing_hub, 'type': 'com.microsoft:eventhub'}, None,
        ))
    with report.step('close') as r:
        client.close()
        r['ok'] = True

    # Read each partition from its start up to the last event its properties announced (no timeout to wait for).
    with report.step('receive_all') as r:
        for partition_id in partition_ids:
            last = report.steps['partition_properties'][partition_id]['body']['last_enqueued_sequence_number']['value']
            r[partition_id] = receive_step(args, {}, hub, partition_id, '-1', last + 1)
    with report.step('receive_after_first') as r:
        events = report.steps['receive_all']['0']
        r['from_offset'] = events[0]['annotations']['x-opt-offset']['value']
        r['events'] = receive_step(args, r, hub, '0', r['from_offset'], len(events) - 1, stock_selector=True)


if __name__ == '__main__':
    main()
