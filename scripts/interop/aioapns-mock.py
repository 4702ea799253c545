#!/usr/bin/env python3
"""scripts/interop/aioapns-mock.py CERTS_DIR HOST:PORT [COUNT] [--goaway-after N]

Sends COUNT (2,000) notifications with aioapns 4.0 (pip install aioapns), a published
client that offers no ALPN, into `apn mock-gateway --http2 --certs CERTS_DIR`, with the
client certificate `apn certs` wrote, and prints one JSON line: how many were accepted and
how the others failed. Not run by CI (it needs PyPI); the mock's own tests cover the same
ground with an in-repo client. Used for #26's closing note (row 1: 0 of 2,000 before).
"""
import asyncio
import json
import os
import ssl
import sys
import uuid

from aioapns import APNs, NotificationRequest
from aioapns import connection as apns_connection


async def main() -> None:
    certs, address = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    host, port = address.rsplit(":", 1)
    # aioapns always dials Apple's host on 443: point its development protocol at the mock.
    apns_connection.APNsDevelopmentClientProtocol.APNS_SERVER = host
    apns_connection.APNsDevelopmentClientProtocol.APNS_PORT = int(port)
    bundle = os.path.join(certs, "aioapns-client.pem")
    with open(bundle, "w") as out:
        for name in ("client.pem", "client.key"):
            with open(os.path.join(certs, name)) as part:
                out.write(part.read())
    context = ssl.create_default_context(cafile=os.path.join(certs, "ca.pem"))
    client = APNs(client_cert=bundle, use_sandbox=True, topic="com.example.app", ssl_context=context,
                  max_connections=1)
    tokens = [f"{n:064x}" for n in range(1, count + 1)]
    requests = [NotificationRequest(device_token=t, message={"aps": {"alert": "hi"}},
                                    notification_id=str(uuid.uuid4())) for t in tokens]
    results = await asyncio.gather(*(client.send_notification(r) for r in requests), return_exceptions=True)
    accepted = sum(1 for r in results if not isinstance(r, BaseException) and r.is_successful)
    failures: dict = {}
    for r in results:
        if isinstance(r, BaseException):
            key = type(r).__name__
        elif not r.is_successful:
            key = f"{r.status} {r.description}"
        else:
            continue
        failures[key] = failures.get(key, 0) + 1
    print(json.dumps({"client": "aioapns 4.0", "sent": count, "accepted": accepted, "failures": failures}))


asyncio.run(main())
