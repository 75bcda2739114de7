"""Shared by the interop clients: command-line options, SAS tokens and the JSON report on stdout.

Each client runs every step even when one fails and prints each step's result as soon as it has it, one
line `INTEROP-STEP {"name": ..., "result": {...}}` (a failed step's result holds "error": "<type>: <message>"
and "trace"), so the TypeScript test can assert step by step, and a client that crashes (python3-uamqp can
segfault after a failed operation) still leaves the steps it finished.
"""
import argparse
import base64
import hashlib
import hmac
import json
import sys
import time
import traceback
import urllib.parse

# The SAS token form Event Hubs documents ("Authenticate access to Event Hubs resources using shared
# access signatures", learn.microsoft.com): the signature is over "<url-encoded resource>\n<expiry>".
SAS_TOKEN_TYPE = 'servicebus.windows.net:sastoken'
TOKEN_LIFETIME_S = 3600
# "apache.org:selector-filter:string" as Event Hubs writes it: described by the ulong 0x0000468C:0x00000004.
SELECTOR_FILTER_NAME = 'apache.org:selector-filter:string'
SELECTOR_FILTER_CODE = (0x0000468C << 32) | 4
STEP_MARKER = 'INTEROP-STEP '


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--host', default='127.0.0.1')
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--hub', required=True)
    parser.add_argument('--missing-hub', required=True)
    parser.add_argument('--key-name', required=True)
    parser.add_argument('--key', required=True)
    parser.add_argument('--tls', action='store_true', help='AMQPS (uamqp always uses it)')
    parser.add_argument('--ca-file', help='PEM certificate to trust: the server must present it')
    parser.add_argument('--debug', action='store_true', help="the client library's frame trace")
    parser.add_argument('--run', default='', help='an id written into the events, to find them again')
    return parser.parse_args()


def sas_token(audience, key_name, key, lifetime_s=TOKEN_LIFETIME_S):
    expiry = str(int(time.time()) + lifetime_s)
    resource = urllib.parse.quote_plus(audience)
    digest = hmac.new(key.encode('utf-8'), f'{resource}\n{expiry}'.encode('utf-8'), hashlib.sha256).digest()
    signature = urllib.parse.quote_plus(base64.b64encode(digest).decode('ascii'))
    return f'SharedAccessSignature sr={resource}&sig={signature}&se={expiry}&skn={urllib.parse.quote_plus(key_name)}'


class Report:
    """Collects step results; `step(name)` is a context manager that records an exception as the step's error."""

    def __init__(self):
        self.steps = {}

    def step(self, name):
        report = self

        class _Step:
            def __init__(self):
                self.result = {}

            def __enter__(self):
                return self.result

            def __exit__(self, kind, error, tb):
                if error is not None:
                    self.result['error'] = f'{kind.__name__}: {error}'
                    self.result['trace'] = ''.join(traceback.format_exception(kind, error, tb))[-2000:]
                report.steps[name] = self.result
                # On a line of its own with a marker: a client library's trace may write to stdout as well.
                sys.stdout.write(STEP_MARKER + json.dumps({'name': name, 'result': self.result}, default=str) + '\n')
                sys.stdout.flush()
                return True  # keep going: later steps are independent of this one

        return _Step()
