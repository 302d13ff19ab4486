#!/usr/bin/env python3
"""http_hostile.py MODE PORT ...: hostile clients of bpmc's --listen, on
the loopback only, each bounded in time and ending by itself.

  hold PORT N SECONDS   opens N idle connections to 127.0.0.1:PORT, 4 from
                        each of 127.0.1.1, 127.0.1.2... (bpmc's limit per
                        address), says "held N" when all are connected,
                        holds them SECONDS, closes them.
  slowloris PORT SECONDS [ADDRESSES PER-ADDRESS BOUND]
                        32 connections, 8 from each of 127.0.0.2 to
                        127.0.0.5 (PER-ADDRESS from each of ADDRESSES),
                        each sending one more header line every 2 s (one
                        closed by the server is opened again at the next
                        line), while 127.0.2.1 scrapes /metrics once a
                        second with a 10 s timeout; for SECONDS in all.
                        Prints each scrape's status and latency and how
                        many attacking connections the server holds;
                        exits 1 unless every scrape was a 200 within 1 s
                        (BOUND s).
  requests PORT         sends raw requests with a body, chunked, with
                        Expect: 100-continue, with a NUL in the request
                        line, each on its own connection; prints each
                        status line; exits 1 unless each is the one
                        expected (405, 413, 404 or 200).
"""
import socket
import statistics
import sys
import threading
import time

SCRAPER = "127.0.2.1"


def connect(port, source, timeout=2.0):
    s = socket.socket()
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


def hold(port, n, seconds):
    socks = [connect(port, "127.0.1.%d" % (1 + i // 4)) for i in range(n)]
    print("held %d" % len(socks), flush=True)
    time.sleep(seconds)
    for s in socks:
        s.close()
    return 0


def server_holds(port, sources):
    """The server's established connections on port from sources."""
    want = {socket.inet_aton(a)[::-1].hex().upper() for a in sources}
    n = 0
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            local, remote = fields[1].split(":"), fields[2].split(":")
            if int(local[1], 16) == port and fields[3] == "01" and remote[0] in want:
                n += 1
    return n


def scrape(port, source, timeout=10.0):
    """(status, seconds) of one GET /metrics; status 0 when none came."""
    t0 = time.monotonic()
    try:
        s = connect(port, source, timeout)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
    except OSError:
        return 0, time.monotonic() - t0
    line = data.split(b"\r\n", 1)[0].split()
    status = int(line[1]) if len(line) > 1 and line[1].isdigit() else 0
    return status, time.monotonic() - t0


def slowloris(port, seconds, addresses=4, per_address=8, bound=1.0):
    attackers = ["127.0.0.%d" % i for i in range(2, 2 + addresses)]
    end = time.monotonic() + seconds
    stop = threading.Event()
    conns = [None] * (addresses * per_address)
    opened = [0]

    def line(i, n):
        if conns[i] is None:
            try:
                conns[i] = connect(port, attackers[i % addresses], 0.5)
                conns[i].sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
                opened[0] += 1
            except OSError:
                conns[i] = None
            return
        try:
            conns[i].sendall(b"X-Slow-%d: y\r\n" % n)
        except OSError:
            conns[i].close()
            conns[i] = None

    def attack():
        n = 0
        while not stop.is_set() and time.monotonic() < end:
            for i in range(len(conns)):
                line(i, n)
            n += 1
            stop.wait(2.0)
        for c in conns:
            if c is not None:
                c.close()

    t = threading.Thread(target=attack)
    t.start()
    time.sleep(1.5)
    results = []
    while time.monotonic() < end - 1.0:
        held = server_holds(port, attackers)
        status, dt = scrape(port, SCRAPER)
        results.append((status, dt, held))
        print("  scrape: %s in %.3f s, %d attacking connections held"
              % (status or "no answer", dt, held), flush=True)
        time.sleep(max(0.0, 1.0 - dt))
    stop.set()
    t.join()
    lat = [dt for _, dt, _ in results]
    ok = [r for r in results if r[0] == 200 and r[1] <= bound]
    print("  %d scrapes under the attack (%d attacking connections opened "
          "from %d addresses): %d answered 200 within %g s; latency min %.3f "
          "median %.3f max %.3f s"
          % (len(results), opened[0], addresses, len(ok), bound, min(lat),
             statistics.median(lat), max(lat)))
    return 0 if results and len(ok) == len(results) else 1


RAW = [
    (405, b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx"),
    (405, b"PUT /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"),
    (405, b"POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n"),
    (413, b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nx"),
    (413, b"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n"),
    (413, b"GET /metrics HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"),
    (413, b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + b"y" * 100000),
    (404, b"GET /metrics\0junk HTTP/1.1\r\nHost: x\r\n\r\n"),
    (404, b"GET /metrics\0 HTTP/1.1\r\nHost: x\r\n\r\n"),
    (404, b"GET /metrics?a\0b HTTP/1.1\r\nHost: x\r\n\r\n"),
    (404, b"GET /metrics%00junk HTTP/1.1\r\nHost: x\r\n\r\n"),
    (404, b"GET /metrics%00 HTTP/1.1\r\nHost: x\r\n\r\n"),
    (200, b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"),
    (200, b"GET /metrics?a=%00 HTTP/1.1\r\nHost: x\r\n\r\n"),
    (200, b"GET /metrics HTTP/1.0\r\n\r\n"),
]


def status_of(port, request):
    """The status of the reply to request, 0 for none (an empty reply)."""
    s = connect(port, "127.0.0.1", 5.0)
    try:
        s.sendall(request)
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # the reply may be in already: a server need not read a body
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        data = b""
    s.close()
    line = data.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else 0


def requests(port):
    bad = 0
    for want, request in RAW:
        got = status_of(port, request)
        shown = request.split(b"\r\n\r\n")[0].replace(b"\r\n", b" | ")
        print("  %s %s: %s" % ("ok" if got == want else "FAIL", shown[:90],
                               got or "empty reply"))
        bad |= got != want
    return bad


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "hold":
        return hold(port, int(sys.argv[3]), float(sys.argv[4]))
    if mode == "slowloris":
        if len(sys.argv) > 4:
            return slowloris(port, float(sys.argv[3]), int(sys.argv[4]),
                             int(sys.argv[5]), float(sys.argv[6]))
        return slowloris(port, float(sys.argv[3]))
    if mode == "requests":
        return requests(port)
    print("unknown mode %r" % mode, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
