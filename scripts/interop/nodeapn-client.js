#!/usr/bin/env node
// scripts/interop/nodeapn-client.js --apn DIR --port N --certs DIR [--count N] [--refuse I,…]
//     [--idle SECONDS] [--timeout SECONDS] [--options JSON] [--rate N]:
// node-apn 1.x as published (DIR holds its index.js, with debug, node-forge and q resolvable
// from it) sends COUNT (20,000) notifications through a binary gateway at 127.0.0.1:N, for
// scripts/interop/nodeapn-bridge (issue #40). Only what connecting needs is given — address,
// port, the client certificate and key and the CA (file names from `apn certs DIR`) — every
// other option is node-apn's default (cacheLength 1000, autoAdjustCache, one connection,
// buffersNotifications, retryLimit -1, fastMode false) unless --options gives a JSON object
// merged into the Connection options (e.g. '{"fastMode":true}'). Token i (1…COUNT) is the 64 hex digits of i; all are
// pushed at once in a loop (or --rate N a second, in 10 ms steps), each its own ~100-byte alert. --refuse lists the numbers the
// upstream refuses (default 2000,6000,10000,14000,18000), only to classify what is reported.
// Ends when node-apn has nothing queued, nothing unwritten and no connection pending and no
// event came for --idle (10) seconds, or at --timeout (600), and prints one JSON line:
// refusals attributed (by token number), unattributed errors, the cacheTooSmall sum, frames
// written per connection and a timeline of connection and error events (ms from start).
// Not run by CI.
'use strict';
const fs = require('fs');
const path = require('path');

function usage() {
    console.error('usage: nodeapn-client.js --apn DIR --port N --certs DIR [--count N] [--refuse I,…] [--idle S] [--timeout S] [--options JSON]');
    process.exit(2);
}
const opts = { count: 20000, refuse: [2000, 6000, 10000, 14000, 18000], idle: 10, timeout: 600, options: {}, rate: 0 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
    const a = argv[i], v = argv[i + 1];
    if (v === undefined) usage();
    switch (a) {
    case '--apn': opts.apn = v; break;
    case '--port': opts.port = Number(v); break;
    case '--certs': opts.certs = v; break;
    case '--count': opts.count = Number(v); break;
    case '--refuse': opts.refuse = v.split(',').filter(Boolean).map(Number); break;
    case '--idle': opts.idle = Number(v); break;
    case '--timeout': opts.timeout = Number(v); break;
    case '--rate': opts.rate = Number(v); break;
    case '--options':
        try { opts.options = JSON.parse(v); } catch (e) { usage(); }
        if (opts.options === null || typeof opts.options !== 'object' || Array.isArray(opts.options)) usage();
        break;
    default: usage();
    }
}
if (!opts.apn || !opts.port || !opts.certs || !(opts.count > 0)) usage();

const apn = require(path.join(path.resolve(opts.apn), 'index.js'));
const tokenOf = (i) => i.toString(16).padStart(64, '0');
const refuseSet = new Set(opts.refuse);
const t0 = Date.now();
const ms = () => Date.now() - t0;

const connection = new apn.Connection(Object.assign({
    address: '127.0.0.1',
    port: opts.port,
    cert: path.join(opts.certs, 'client.pem'),
    key: path.join(opts.certs, 'client.key'),
    ca: path.join(opts.certs, 'ca.pem'),
}, opts.options));

const timeline = [];
const attributed = {};          // token number → [status, …] for the refused ones
const attributedOther = [];     // reports naming a token that was not to be refused
const unattributed = [];        // {status, t}
let cacheTooSmallSum = 0, cacheTooSmallEvents = 0, transmitted = 0, firstTransmitted = null,
    lastTransmitted = null, connections = 0, errors = [];
const writtenPerConnection = [];
let lastEvent = Date.now();
const touch = () => { lastEvent = Date.now(); };

connection.on('connected', (n) => {
    touch();
    connections++;
    const socket = connection.socket;   // the socket just connected (observed, not altered)
    const id = connections;
    timeline.push({ t: ms(), ev: 'connected', conn: id, queued: connection.notificationBuffer.length });
    if (socket) {
        socket.once('end', () => timeline.push({ t: ms(), ev: 'peer_end', conn: id }));
        socket.once('close', () => {
            touch();
            writtenPerConnection.push(socket.apnCurrentId || 0);
            timeline.push({ t: ms(), ev: 'closed', conn: id, written: socket.apnCurrentId || 0,
                after_error: !!socket.transmissionErrorOccurred });
        });
    }
});
connection.on('disconnected', () => { touch(); timeline.push({ t: ms(), ev: 'disconnected' }); });
connection.on('transmitted', () => {
    touch();
    transmitted++;
    if (firstTransmitted === null) firstTransmitted = ms();
    lastTransmitted = ms();
});
connection.on('cacheTooSmall', (size) => {
    touch();
    cacheTooSmallEvents++;
    cacheTooSmallSum += size;
    timeline.push({ t: ms(), ev: 'cacheTooSmall', size });
});
connection.on('transmissionError', (status, notification, recipient) => {
    touch();
    const queuedBefore = connection.notificationBuffer.length;
    const entry = { t: ms(), ev: 'transmissionError', status, token: null, queued_before: queuedBefore };
    if (recipient) {
        const n = parseInt(recipient.toString(), 16);
        entry.token = n;
        if (refuseSet.has(n)) (attributed[n] = attributed[n] || []).push(status);
        else attributedOther.push({ token: n, status });
    } else {
        unattributed.push({ status, t: entry.t });
    }
    timeline.push(entry);
    // node-apn buffers the cached notifications after the error for resending right after
    // emitting the event; the difference is how many it will resend.
    setImmediate(() => { entry.requeued = connection.notificationBuffer.length - queuedBefore; });
});
connection.on('socketError', (e) => { touch(); timeline.push({ t: ms(), ev: 'socketError', error: String(e && e.message || e) }); });
connection.on('timeout', () => { touch(); timeline.push({ t: ms(), ev: 'timeout' }); });
connection.on('error', (e) => { touch(); errors.push(String(e && e.message || e)); timeline.push({ t: ms(), ev: 'error', error: String(e && e.message || e) }); });

function push(i) {
    const note = new apn.Notification();
    note.alert = 'Hello through the bridge, notification number ' + i;
    note.badge = 1;
    note.payload = { id: String(i).padStart(10, '0') };
    connection.pushNotification(note, tokenOf(i));
}
let pushed = 0;
let pushedAt = null;
if (opts.rate > 0) {
    const pacer = setInterval(() => {
        const due = Math.min(opts.count, Math.floor((ms() * opts.rate) / 1000));
        while (pushed < due) push(++pushed);
        touch();
        if (pushed >= opts.count) { clearInterval(pacer); pushedAt = ms(); }
    }, 10);
} else {
    while (pushed < opts.count) push(++pushed);
    pushedAt = ms();
}

function idle() {
    if (pushed < opts.count) return false;
    if (connection.notificationBuffer.length > 0 || connection.deferredConnection) return false;
    for (const s of connection.sockets) {
        if (s.apnBusy || s.writableLength > 0) return false;
    }
    return Date.now() - lastEvent >= opts.idle * 1000;
}

function finish(reason) {
    const refusedReported = opts.refuse.filter((n) => attributed[n]);
    const out = {
        end: reason, elapsed_ms: ms(), pushed_ms: pushedAt, count: opts.count, options: opts.options,
        refused_expected: opts.refuse.length,
        refusals_attributed: refusedReported.length,
        refused_reported: refusedReported,
        refused_reports: attributed,
        attributed_other: attributedOther,
        unattributed_errors: unattributed.length,
        unattributed,
        cache_too_small_events: cacheTooSmallEvents,
        cache_too_small_sum: cacheTooSmallSum,
        cache_length_final: connection.options.cacheLength,
        transmitted_events: transmitted,
        first_transmitted_ms: firstTransmitted, last_transmitted_ms: lastTransmitted,
        connections,
        frames_written: writtenPerConnection.reduce((a, b) => a + b, 0)
            + connection.sockets.reduce((a, s) => a + (s.apnCurrentId || 0), 0),
        written_per_connection: writtenPerConnection,
        still_queued: connection.notificationBuffer.length,
        errors,
        timeline,
    };
    for (const s of connection.sockets) s.destroy();
    if (connection.socket) connection.socket.destroy();
    process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
}

const timer = setInterval(() => {
    if (idle()) { clearInterval(timer); finish('idle'); }
    else if (ms() > opts.timeout * 1000) { clearInterval(timer); finish('timeout'); }
}, 250);
