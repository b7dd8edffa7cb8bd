#!/usr/bin/env python3
"""ctl_client.py PORT PAYLOAD [--host H] [--auth FILE] [--vouch] [--hold S]: a hand-made
controller of the control protocol (src/link/ctl.h: a 12-byte header of magic 0x534b424e,
version 2, type and payload length, all big-endian, then the JSON payload), for tests that send
what sockbench itself never would. HELLO, AUTH when the agent sends a challenge (--auth FILE:
HMAC-SHA256(secret, "sockbench-auth-v1" || challenge), as src/link/auth.c), then PAYLOAD as a
SETUP (or a VOUCH with --vouch), retried while the agent says busy (5 s at most). Prints the
answer as one JSON line {"type": "READY", "payload": {...}}; with --hold S keeps the connection
open S seconds more (a server test stays set up meanwhile), reading what comes, then closes."""
import argparse
import hashlib
import hmac
import json
import socket
import struct
import sys
import time

MAGIC, VERSION = 0x534B424E, 2
TYPES = ["?", "HELLO", "ACK", "ERROR", "SETUP", "READY", "BEGIN", "END", "RESULT", "BYE",
         "AUTH", "PING", "NOTICE", "STATE", "VOUCH"]


def send(s, kind, payload):
    data = payload.encode()
    s.sendall(struct.pack(">IHHI", MAGIC, VERSION, TYPES.index(kind), len(data)) + data)


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        got = s.recv(n - len(buf))
        if not got:
            raise EOFError("the agent closed the connection")
        buf += got
    return buf


def recv(s):
    magic, version, kind, length = struct.unpack(">IHHI", recv_exact(s, 12))
    if magic != MAGIC or version != VERSION or kind >= len(TYPES) or length > 65536:
        raise ValueError("not a control frame")
    body = recv_exact(s, length).decode()
    return TYPES[kind], json.loads(body) if body else {}


def attempt(args):
    s = socket.create_connection((args.host, args.port), timeout=10)
    send(s, "HELLO", '{"protocol":1}')
    kind, ack = recv(s)
    if kind == "ACK" and "challenge" in ack:
        if not args.auth:
            return s, "ERROR", {"error": "the agent wants a secret: give --auth"}
        key = open(args.auth, "rb").read().rstrip(b"\r\n")
        mac = hmac.new(key, b"sockbench-auth-v1" + bytes.fromhex(ack["challenge"]),
                       hashlib.sha256).hexdigest()
        send(s, "AUTH", json.dumps({"mac": mac}))
        kind, ack = recv(s)
    if kind != "ACK":
        return s, kind, ack
    send(s, "VOUCH" if args.vouch else "SETUP", args.payload)
    kind, answer = recv(s)
    return s, kind, answer


def main():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("payload")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--auth")
    p.add_argument("--vouch", action="store_true")
    p.add_argument("--hold", type=float, default=0)
    args = p.parse_args()
    until = time.monotonic() + 5
    while True:
        s, kind, answer = attempt(args)
        if kind == "ERROR" and answer.get("busy") and time.monotonic() < until:
            s.close()
            time.sleep(0.2)
            continue
        break
    print(json.dumps({"type": kind, "payload": answer}), flush=True)
    end = time.monotonic() + args.hold
    s.settimeout(0.2)
    while time.monotonic() < end:
        try:
            recv(s)
        except socket.timeout:
            continue
        except (EOFError, ValueError, OSError):
            break
    s.close()


if __name__ == "__main__":
    sys.exit(main())
