#!/usr/bin/env node
// scripts/interop/nodeapn-upstream.js --certs DIR [--port N] [--latency MS] [--refuse FILE|--refuse-tokens HEX,…]:
// an independent stand-in for Apple's HTTP/2 API (Node's own http2 module, none of our code)
// for scripts/interop/nodeapn-bridge (issue #40). TLS with DIR/server.pem and DIR/server.key
// as written by `apn certs DIR`, ALPN h2, up to 1,000 concurrent streams. Each POST
// /3/device/<token> is answered after MS (50) milliseconds: 200 with an apns-id header, or
// 400 {"reason":"BadDeviceToken"} for a token listed in --refuse FILE (one hex token a line)
// or --refuse-tokens. Counts every request per token. Prints {"port":N} once listening;
// `GET /counts` (optionally ?expect=N: also the token numbers in 1…N, token = 64 hex digits
// of the number, that were never requested) answers the counts as JSON, and SIGTERM/SIGINT
// prints them as one JSON line and exits 0. Authorization is not checked. Not run by CI.
'use strict';
const fs = require('fs');
const http2 = require('http2');
const path = require('path');
const crypto = require('crypto');

function usage() {
    console.error('usage: nodeapn-upstream.js --certs DIR [--port N] [--latency MS] [--refuse FILE] [--refuse-tokens HEX,…]');
    process.exit(2);
}
const opts = { port: 0, latency: Number(process.env.LATENCY_MS || 50), refuse: new Set() };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
    const a = argv[i], v = argv[i + 1];
    if (v === undefined && a !== '--help') usage();
    switch (a) {
    case '--certs': opts.certs = v; i++; break;
    case '--port': opts.port = Number(v); i++; break;
    case '--latency': opts.latency = Number(v); i++; break;
    case '--refuse':
        for (const t of fs.readFileSync(v, 'utf8').split(/\s+/)) if (t) opts.refuse.add(t.toLowerCase());
        i++; break;
    case '--refuse-tokens':
        for (const t of v.split(',')) if (t) opts.refuse.add(t.toLowerCase());
        i++; break;
    default: usage();
    }
}
if (!opts.certs || !(opts.latency >= 0)) usage();

const perToken = new Map();   // token → requests
let total = 0, refused = 0, answered = 0, otherRequests = 0, maxInFlight = 0, inFlight = 0;
let firstAt = null, lastAt = null;
const started = Date.now();

function counts(expect) {
    let duplicateTokens = 0, duplicateRequests = 0;
    for (const n of perToken.values()) {
        if (n > 1) { duplicateTokens++; duplicateRequests += n - 1; }
    }
    const out = {
        total_requests: total, distinct_tokens: perToken.size, duplicate_tokens: duplicateTokens,
        duplicate_requests: duplicateRequests, refused, answered, in_flight: inFlight,
        max_in_flight: maxInFlight, other_requests: otherRequests,
        first_request_ms: firstAt === null ? null : firstAt - started,
        last_request_ms: lastAt === null ? null : lastAt - started,
        refused_tokens_seen: {},   // token → requests, for the tokens to be refused
    };
    for (const t of opts.refuse) if (perToken.has(t)) out.refused_tokens_seen[t] = perToken.get(t);
    if (expect > 0) {
        const never = [];
        for (let i = 1; i <= expect; i++) {
            if (!perToken.has(i.toString(16).padStart(64, '0'))) never.push(i);
        }
        out.expect = expect;
        out.never_requested = never;
    }
    return out;
}

const server = http2.createSecureServer({
    cert: fs.readFileSync(path.join(opts.certs, 'server.pem')),
    key: fs.readFileSync(path.join(opts.certs, 'server.key')),
    allowHTTP1: false,
    settings: { maxConcurrentStreams: 1000 },
    peerMaxConcurrentStreams: 1000,
});
server.on('sessionError', () => {});
server.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    const method = headers[':method'], p = headers[':path'] || '';
    if (method === 'GET' && p.startsWith('/counts')) {
        const m = /[?&]expect=(\d+)/.exec(p);
        stream.respond({ ':status': 200, 'content-type': 'application/json' });
        stream.end(JSON.stringify(counts(m ? Number(m[1]) : 0)) + '\n');
        return;
    }
    const m = /^\/3\/device\/([0-9a-fA-F]+)$/.exec(p);
    if (method !== 'POST' || !m) {
        otherRequests++;
        stream.respond({ ':status': 404, 'content-type': 'application/json' });
        stream.end('{"reason":"BadPath"}');
        return;
    }
    const token = m[1].toLowerCase();
    const now = Date.now();
    if (firstAt === null) firstAt = now;
    lastAt = now;
    total++;
    perToken.set(token, (perToken.get(token) || 0) + 1);
    inFlight++;
    if (inFlight > maxInFlight) maxInFlight = inFlight;
    const apnsID = headers['apns-id'] || crypto.randomUUID();
    let open = true;
    const done = () => { if (open) { open = false; inFlight--; } };
    stream.on('close', done);
    stream.resume();   // the payload is not inspected; drain it
    stream.on('end', () => {
        setTimeout(() => {
            if (stream.destroyed || stream.closed) return done();
            done();
            answered++;
            if (opts.refuse.has(token)) {
                refused++;
                stream.respond({ ':status': 400, 'apns-id': apnsID, 'content-type': 'application/json' });
                stream.end('{"reason":"BadDeviceToken"}');
            } else {
                stream.respond({ ':status': 200, 'apns-id': apnsID });
                stream.end();
            }
        }, opts.latency);
    });
});
function stop() {
    process.stdout.write(JSON.stringify(counts(0)) + '\n', () => process.exit(0));
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
server.listen(opts.port, '127.0.0.1', () => {
    console.log(JSON.stringify({ port: server.address().port, latency_ms: opts.latency, refuse: opts.refuse.size }));
});
