#!/usr/bin/env python3
"""Signing vectors from Bybit's official Python SDK (pybit 5.17), for
crates/venue/tests/bybit_private.rs (pybit_signing_vectors).

    python3 -m venv /tmp/pybit && /tmp/pybit/bin/pip install 'pybit==5.17.*'
    /tmp/pybit/bin/python tools/bybit_sign_vectors.py > crates/venue/tests/data/pybit_sign_vectors.json

Each vector runs pybit's own code on fixed inputs: HTTP._auth over the payload pybit builds
with prepare_payload (GET: sorted `k=v&...`; POST: json.dumps of the body), and the private
websocket's _auth with its clock fixed, capturing the auth message it would send. No network.
"""

import json

import pybit
from pybit import _websocket_stream
from pybit._websocket_stream import _WebSocketManager
from pybit.unified_trading import HTTP

# The placeholder key and secret of Bybit's own integration guide, kept on purpose: the
# inputs are public test data, never a real credential.
API_KEY = "XXXXXXXXXX"
SECRET = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
RECV_WINDOW = 5000

http = HTTP(api_key=API_KEY, api_secret=SECRET, recv_window=RECV_WINDOW)

rest = []
for method, timestamp, params in [
    ("GET", 1658384314791, {"category": "linear", "symbol": "BTCUSDT"}),
    (
        "GET",
        1700000000123,
        {"category": "linear", "limit": "50", "orderLinkId": "sd-42-open", "symbol": "ETHUSDT"},
    ),
    (
        "POST",
        1658385579423,
        {
            "category": "linear",
            "symbol": "BTCUSDT",
            "side": "Buy",
            "orderType": "Market",
            "qty": "0.01",
            "orderLinkId": "sd-1-open",
            "reduceOnly": False,
            "positionIdx": 0,
        },
    ),
    (
        "POST",
        1700000000456,
        {"category": "linear", "symbol": "BTCUSDT", "tpslMode": "Full", "positionIdx": 0, "stopLoss": "49000"},
    ),
]:
    payload = HTTP.prepare_payload(method, dict(params))
    rest.append(
        {
            "method": method,
            "timestamp": timestamp,
            "recv_window": RECV_WINDOW,
            "payload": payload,
            "sign": http._auth(payload, RECV_WINDOW, timestamp),
        }
    )


class CapturingWs:
    def __init__(self):
        self.sent = []

    def send(self, message):
        self.sent.append(json.loads(message))


ws = []
for expires in [1662350400000, 1700000001000]:
    manager = object.__new__(_WebSocketManager)
    manager.api_key = API_KEY
    manager.api_secret = SECRET
    manager.rsa_authentication = False
    manager.private_auth_expire = 1
    manager.ws = CapturingWs()
    _websocket_stream._helpers.generate_timestamp = lambda e=expires: e - 1000
    manager._auth()
    (message,) = manager.ws.sent
    assert message["op"] == "auth" and message["args"][1] == expires
    ws.append({"expires": expires, "sign": message["args"][2]})

print(
    json.dumps(
        {
            "source": "pybit " + getattr(pybit, "VERSION", "5.17"),
            "api_key": API_KEY,
            "secret": SECRET,
            "rest": rest,
            "ws_auth": ws,
        },
        indent=2,
    )
)
