#!/usr/bin/env python3
"""capture_proxy.py TARGET_PORT LOG: forward every TCP connection made to a free port on
127.0.0.1 to 127.0.0.1:TARGET_PORT, appending every byte of both directions to LOG. Prints the
port it listens on, then runs until killed. For tests that look at what crosses the wire."""
import socket
import sys
import threading

target, log = int(sys.argv[1]), sys.argv[2]
lock = threading.Lock()


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            with lock, open(log, "ab") as f:
                f.write(data)
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(16)
    print(lsock.getsockname()[1], flush=True)
    while True:
        c, _ = lsock.accept()
        u = socket.create_connection(("127.0.0.1", target))
        threading.Thread(target=pump, args=(c, u), daemon=True).start()
        threading.Thread(target=pump, args=(u, c), daemon=True).start()


main()
