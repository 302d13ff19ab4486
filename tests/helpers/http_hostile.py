#!/usr/bin/env python3
"""http_hostile.py MODE PORT ...: hostile clients of bpmc's --listen, on
the loopback only, each bounded in time and ending by itself.

  hold PORT N SECONDS   opens N idle connections to 127.0.0.1:PORT, from
                        127.0.0.2 to 127.0.0.5 in turn, says "held N" when
                        all are connected, holds them SECONDS, closes them.
"""
import socket
import sys
import time

ATTACKERS = ["127.0.0.%d" % i for i in range(2, 6)]


def connect(port, source, timeout=2.0):
    s = socket.socket()
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


def hold(port, n, seconds):
    socks = [connect(port, ATTACKERS[i % len(ATTACKERS)]) for i in range(n)]
    print("held %d" % len(socks), flush=True)
    time.sleep(seconds)
    for s in socks:
        s.close()
    return 0


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "hold":
        return hold(port, int(sys.argv[3]), float(sys.argv[4]))
    print("unknown mode %r" % mode, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
