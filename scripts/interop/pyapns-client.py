#!/usr/bin/env python3
# scripts/interop/pyapns-client.py --pyapns DIR --port N --certs DIR --variant enhanced|frame
#     [--count N] [--refuse I,…] [--frame-size N] [--idle SECONDS] [--timeout SECONDS]:
# PyAPNs (djacobs/PyAPNs, the binary-protocol Python client; DIR holds its apns.py, unmodified)
# sends COUNT (20,000) notifications through a binary gateway at 127.0.0.1:N, for
# scripts/interop/pyapns-bridge (issue #40). Token i (1…COUNT) is the 64 hex digits of i, its
# identifier is i, expiry 0, each its own ~100-byte alert, all sent at once in a loop.
#   enhanced: APNs(enhanced=True) and gateway_server.send_notification(token, payload, i) per
#     notification (command 1); PyAPNs' error-response thread reads error responses, calls our
#     listener, closes and resends what it wrote after the refused identifier.
#   frame: the same APNs(enhanced=True) connection, notifications batched FRAME_SIZE (100) a
#     Frame and sent with send_notification_multiple (command 2). Enhanced, because only then
#     does PyAPNs read error responses or keep anything to resend (its plain mode never reads,
#     and never reconnects after a failed write). send_notification_multiple neither starts the
#     error-response thread nor takes the send lock that thread resends under, so each frame is
#     sent as send_notification sends a notification: under gateway_server._send_lock, after
#     gateway_server._make_sure_error_response_handler_worker_alive(). A frame whose write
#     raises is written again (only the write: the frame is already in PyAPNs' resend record)
#     after 10 + 2·attempt seconds, at most 3 times, as send_notification does.
# Only what connecting needs is set: the gateway's address and port (PyAPNs hard-codes Apple's
# host and 2195; set on gateway_server) and the client certificate and key (`apn certs DIR`).
# PyAPNs does not verify the server. No shim: it imports and runs unmodified under Python 3.11
# (ssl.wrap_socket, gone in 3.12, is still there). --refuse lists the numbers the upstream
# refuses (default 2000,6000,10000,14000,18000), only to classify what is reported.
# Ends when the sending loop is done, nothing was sent, reported or resent and no connection
# made for --idle (10) seconds, PyAPNs' send lock is free and the socket's send queue is empty
# (SIOCOUTQ), or at --timeout (600); prints one JSON line: refusals reported (by identifier),
# what PyAPNs logged (its "resending N notifications" per error, writes it dropped because the
# socket was not writable for 10 s, exceptions), connections and a timeline (ms from start).
# Not run by CI.
import argparse
import fcntl
import json
import logging
import os
import struct
import sys
import termios
import threading
import time

ap = argparse.ArgumentParser()
ap.add_argument('--pyapns', required=True)
ap.add_argument('--port', type=int, required=True)
ap.add_argument('--certs', required=True)
ap.add_argument('--variant', choices=['enhanced', 'frame'], required=True)
ap.add_argument('--count', type=int, default=20000)
ap.add_argument('--refuse', default='2000,6000,10000,14000,18000')
ap.add_argument('--frame-size', type=int, default=100)
ap.add_argument('--idle', type=float, default=10)
ap.add_argument('--timeout', type=float, default=600)
opts = ap.parse_args()
refuse = [int(x) for x in opts.refuse.split(',') if x]
refuse_set = set(refuse)

sys.path.insert(0, os.path.abspath(opts.pyapns))
import apns  # noqa: E402  (PyAPNs, as published)

t0 = time.monotonic()
ms = lambda: int((time.monotonic() - t0) * 1000)
last_event = [time.monotonic()]
touch = lambda: last_event.__setitem__(0, time.monotonic())
timeline = []
state_lock = threading.Lock()


class Capture(logging.Handler):
    """What PyAPNs logs at INFO and above, counted (it says what it resends only here)."""
    def __init__(self):
        super().__init__(logging.INFO)
        self.resends, self.not_writable, self.exceptions, self.closed, self.other = [], 0, [], 0, []

    def emit(self, record):
        touch()
        msg = record.getMessage()
        with state_lock:
            if msg.startswith('resending ') and msg.endswith(' notifications to APNS'):
                n = int(msg.split()[1])
                self.resends.append(n)
                timeline.append({'t': ms(), 'ev': 'resending', 'n': n})
            elif msg.startswith('write socket descriptor is not ready'):
                self.not_writable += 1
                timeline.append({'t': ms(), 'ev': 'write_dropped_not_writable'})
            elif record.exc_info or record.levelno >= logging.ERROR:
                self.exceptions.append(msg[:200])
                timeline.append({'t': ms(), 'ev': 'exception', 'msg': msg[:200]})
            elif 'APNS connection closed' in msg:
                self.closed += 1
                timeline.append({'t': ms(), 'ev': 'closed'})
            elif msg.startswith('got error-response'):
                pass   # the listener records it
            else:
                self.other.append(msg[:200])


capture = Capture()
logger = logging.getLogger('apns')
logger.setLevel(logging.INFO)
logger.addHandler(capture)
logger.propagate = False

server = apns.APNs(cert_file=os.path.join(opts.certs, 'client.pem'),
                   key_file=os.path.join(opts.certs, 'client.key'), enhanced=True)
gw = server.gateway_server
gw.server, gw.port = '127.0.0.1', opts.port

# Observe (not alter) the connections PyAPNs makes.
connections = [0]
_connect = gw._connect


def counting_connect():
    _connect()
    touch()
    with state_lock:
        connections[0] += 1
        timeline.append({'t': ms(), 'ev': 'connected', 'conn': connections[0]})


gw._connect = counting_connect

reports, attributed, attributed_other, unattributed = [], {}, [], []


def listener(error):
    # Called by PyAPNs' error-response thread, holding the send lock, before it closes the
    # connection and resends what follows the identifier in its record.
    touch()
    status, ident = error['status'], error['identifier']
    entry = {'t': ms(), 'ev': 'error_response', 'status': status, 'identifier': ident}
    record = gw._sent_notifications
    ids = [d['id'] for d in record]
    entry['record_len'] = len(ids)
    entry['written_after'] = (len(ids) - ids.index(ident) - 1) if ident in ids else None
    with state_lock:
        timeline.append(entry)
        reports.append(entry)
        if status == 8 and ident in refuse_set:
            attributed.setdefault(ident, []).append(status)
        elif 1 <= ident <= opts.count:
            attributed_other.append({'identifier': ident, 'status': status})
        else:
            unattributed.append({'identifier': ident, 'status': status})


gw.register_response_listener(listener)


def payload(i):
    return apns.Payload(alert='Hello through the bridge, notification number %d' % i, badge=1,
                        custom={'id': '%010d' % i})


token = lambda i: '%064x' % i
write_errors = []
written = 0
if opts.variant == 'enhanced':
    for i in range(1, opts.count + 1):
        gw.send_notification(token(i), payload(i), identifier=i, expiry=0)
        written += 1
        touch()
else:
    for start in range(1, opts.count + 1, opts.frame_size):
        frame = apns.Frame()
        for i in range(start, min(start + opts.frame_size, opts.count + 1)):
            frame.add_item(token(i), payload(i), i, 0, 10)
        for attempt in range(apns.WRITE_RETRY):
            try:
                with gw._send_lock:
                    gw._make_sure_error_response_handler_worker_alive()
                    if attempt == 0:
                        gw.send_notification_multiple(frame)
                    else:
                        gw.write(frame.get_frame())
                break
            except OSError as e:
                with state_lock:
                    write_errors.append({'t': ms(), 'first': start, 'attempt': attempt + 1, 'error': repr(e)[:200]})
                    timeline.append({'t': ms(), 'ev': 'write_error', 'first': start, 'error': repr(e)[:120]})
                time.sleep(10 + attempt * 2)
        written += frame.notification_data.__len__()
        touch()
sent_ms = ms()


def unsent_bytes():
    try:
        if gw.connection_alive and gw._ssl is not None and gw._ssl.fileno() >= 0:
            return struct.unpack('i', fcntl.ioctl(gw._ssl.fileno(), termios.TIOCOUTQ, b'\0\0\0\0'))[0]
    except OSError:
        pass
    return 0


def quiet():
    if time.monotonic() - last_event[0] < opts.idle:
        return False
    if not gw._send_lock.acquire(blocking=False):
        return False
    gw._send_lock.release()
    return unsent_bytes() == 0


end = 'timeout'
while time.monotonic() - t0 < opts.timeout:
    if quiet():
        end = 'idle'
        break
    time.sleep(0.25)

with state_lock:
    refused_reported = [n for n in refuse if n in attributed]
    out = {
        'variant': opts.variant, 'end': end, 'elapsed_ms': ms(), 'sent_ms': sent_ms,
        'count': opts.count, 'frame_size': opts.frame_size if opts.variant == 'frame' else None,
        'written_by_loop': written,
        'refused_expected': len(refuse),
        'refusals_attributed': len(refused_reported),
        'refused_reported': refused_reported,
        'refused_reports': {str(k): v for k, v in attributed.items()},
        'attributed_other': attributed_other,
        'unattributed_errors': len(unattributed), 'unattributed': unattributed,
        'error_responses': len(reports),
        'resends': capture.resends, 'resent_total': sum(capture.resends),
        'writes_dropped_not_writable': capture.not_writable,
        'exceptions_logged': capture.exceptions[:20], 'exceptions_logged_count': len(capture.exceptions),
        'write_errors': write_errors,
        'connections': connections[0], 'closed_logged': capture.closed,
        'record_len_final': len(gw._sent_notifications),
        'worker_alive': bool(gw._error_response_handler_worker and gw._error_response_handler_worker.is_alive()),
        'other_log': capture.other[:10],
        'timeline': timeline,
    }
sys.stdout.write(json.dumps(out) + '\n')
sys.stdout.flush()
os._exit(0)   # PyAPNs' error-response thread is not a daemon and may sit in select() for 10 s
