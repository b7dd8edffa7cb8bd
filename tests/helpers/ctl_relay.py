#!/usr/bin/env python3
"""ctl_relay.py AGENT_PORT MODE: a forged agent for tests of what a controller prints. It
relays every control connection made to a free port on 127.0.0.1 to a real `sockbench serve`
at 127.0.0.1:AGENT_PORT, frame by frame (src/link/ctl.h: a 12-byte header of magic
0x534b424e, version 2, type and payload length, big-endian, then JSON), and makes the agent's
words hostile as MODE says:
  result  the RESULT's socket read-back (cc, local address, device), an environment and a
          sysctl_restore_error all carry terminal escapes (ESC ] 0; title BEL, ESC [ 2J,
          ESC [ 1A, the C1 CSI U+009B, a newline);
  notice  a NOTICE with escapes follows the agent's ACK of BEGIN (the test stops);
  refuse  the SETUP is answered with an ERROR with escapes, not relayed.
The data sockets are the real agent's (READY's port, on the address the control connection
reached). Prints the port it listens on, then runs until killed."""
import json
import socket
import struct
import sys
import threading

MAGIC, VERSION = 0x534B424E, 2
TYPES = ["?", "HELLO", "ACK", "ERROR", "SETUP", "READY", "BEGIN", "END", "RESULT", "BYE",
         "AUTH", "PING", "NOTICE", "STATE", "VOUCH", "CLOSE"]
# Each string names where it went, so a test can find each one, escaped, in the output.
ESC = "\x1b]0;pwned\x07\x1b[2J\u009b1A\n"


def hostile(name):
    return name + ESC + "end"


def frame(kind, payload):
    data = json.dumps(payload).encode() if payload is not None else b""
    return struct.pack(">IHHI", MAGIC, VERSION, TYPES.index(kind), len(data)) + data


def read_frame(s):
    hdr = b""
    while len(hdr) < 12:
        got = s.recv(12 - len(hdr))
        if not got:
            return None, None
        hdr += got
    magic, version, kind, length = struct.unpack(">IHHI", hdr)
    body = b""
    while len(body) < length:
        got = s.recv(length - len(body))
        if not got:
            return None, None
        body += got
    return hdr, body


def forge_result(body):
    res = json.loads(body)
    # Short enough for the read-back's fields (cc 15 bytes, device 15, local 63).
    res["socket"] = {"cc": "c\x1b]0;t\x07", "mss": 1000, "tos": 0,
                     "local": "127.0.0.1\x1b[1A\u009b", "device": "d\x1b[2J\n"}
    res["environment"] = {
        "hostname": hostile("host"),
        "kernel": {"release": hostile("release"), "machine": hostile("machine")},
        "cpu": {"online": 2, "model": hostile("model"), "governor": hostile("governor"),
                "turbo": hostile("turbo")},
        "virtualization": {"hypervisor": hostile("hypervisor")},
        "clocksource": hostile("clock"),
        "interface": {"name": hostile("ifname"), "driver": hostile("driver"), "mtu": 1500,
                      "qdisc": hostile("qdisc"),
                      "offloads": {"gro": hostile("gro"), "gso": True, "tso": False}},
        "sysctl": {"net.core.rmem_max": hostile("rmem")},
    }
    res["sysctl_restore_error"] = hostile("restore")
    return json.dumps(res).encode()


def serve(c, port, mode):
    a = socket.create_connection(("127.0.0.1", port))
    last = {"from_controller": None}

    def up():  # controller -> agent
        while True:
            hdr, body = read_frame(c)
            if hdr is None:
                break
            kind = TYPES[struct.unpack(">IHHI", hdr)[2]]
            last["from_controller"] = kind
            if mode == "refuse" and kind == "SETUP":
                c.sendall(frame("ERROR", {"error": hostile("refusal"), "errno": 1,
                                          "usage": False}))
                continue
            a.sendall(hdr + body)
        a.close()

    threading.Thread(target=up, daemon=True).start()
    while True:  # agent -> controller
        hdr, body = read_frame(a)
        if hdr is None:
            break
        kind = TYPES[struct.unpack(">IHHI", hdr)[2]]
        if mode == "result" and kind == "RESULT":
            body = forge_result(body)
            hdr = struct.pack(">IHHI", MAGIC, VERSION, TYPES.index(kind), len(body))
        c.sendall(hdr + body)
        if mode == "notice" and kind == "ACK" and last["from_controller"] == "BEGIN":
            c.sendall(frame("NOTICE", {"error": hostile("notice"), "errno": 11}))
    c.close()


def main():
    port, mode = int(sys.argv[1]), sys.argv[2]
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(16)
    print(lsock.getsockname()[1], flush=True)
    while True:
        c, _ = lsock.accept()
        threading.Thread(target=serve, args=(c, port, mode), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
