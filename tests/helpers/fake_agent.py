#!/usr/bin/env python3
"""fake_agent.py: what any local user can start on a loopback port: something that speaks the
control protocol (tests/helpers/ctl_client.py's framing) and says yes to every VOUCH, unsigned,
echoing what it was asked. Prints its port, then answers connections for 60 s at most. A client
agent without a secret must not take its word (src/link/vouch.c: the owner of the far socket)."""
import json
import socket
import sys
import time

sys.path.insert(0, __import__("os").path.dirname(__file__))
from ctl_client import recv, send  # noqa: E402


def main():
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(8)
    lst.settimeout(0.5)
    print(lst.getsockname()[1], flush=True)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        try:
            c, _ = lst.accept()
        except socket.timeout:
            continue
        c.settimeout(5)
        try:
            recv(c)  # HELLO
            send(c, "ACK", "{}")
            kind, q = recv(c)
            if kind == "VOUCH":
                send(c, "ACK", json.dumps(dict(q, vouch=True)))
        except (EOFError, ValueError, OSError):
            pass
        c.close()


if __name__ == "__main__":
    sys.exit(main())
