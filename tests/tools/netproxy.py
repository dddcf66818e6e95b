#!/usr/bin/python3
"""netproxy -- a TCP proxy a test controls, one per node (tests/pg.sh).

    netproxy.py serve --target HOST:PORT --control SOCK --port-file FILE
    netproxy.py ctl SOCK COMMAND [ARG]

serve listens on 127.0.0.1 on a free port (written to FILE once it
listens, by a rename: the file appears complete or not at all) and
forwards every connection to HOST:PORT.  It runs until SIGTERM or SIGINT
(or "quit").  The control socket SOCK takes one line per connection and
answers "ok ..." once the change is in effect (or "error ..."):

  cut        reset every current connection (RST to the client, the
             server's side closed) and reset every new one at once: a
             client fails fast ("connection reset", "server closed the
             connection unexpectedly")
  blackhole  forward nothing, either way, on current and new connections,
             without closing any: a client hangs as behind a network
             partition (the kernel still completes the handshake of a new
             connection, which then waits: the bytes a side sends stay
             queued, as TCP retransmits them, and flow on restore)
  delay MS   add MS milliseconds to each direction (a round trip takes
             2 * MS more); 0 removes it.  Independent of the mode
  restore    forward again (undoes cut and blackhole, not delay)
  status     "ok MODE DELAY_MS CONNECTIONS ACCEPTED"
  quit       stop

ctl sends COMMAND to SOCK and prints the answer; it exits 1 on an error
answer or when the proxy cannot be reached.
"""

import asyncio
import os
import signal
import socket
import struct
import sys
import time

CHUNK = 65536


class Link:
    """One proxied connection: a client side and a server side."""

    def __init__(self, proxy, creader, cwriter):
        self.proxy = proxy
        self.creader, self.cwriter = creader, cwriter
        self.swriter = None
        self.tasks = []
        self.dead = False

    async def run(self):
        p = self.proxy
        try:
            await p.flowing()       # a blackhole holds even the connect
            if p.mode == "cut":
                return self.reset()
            sreader, self.swriter = await asyncio.open_connection(
                p.host, p.port)
            if self.dead:           # cut while connecting
                return self.reset()
            nodelay(self.swriter)
            self.tasks = [asyncio.ensure_future(self.pipe(r, w))
                          for r, w in ((self.creader, self.swriter),
                                       (sreader, self.cwriter))]
            # Until both directions end, or one fails (a reset).
            await asyncio.wait(self.tasks,
                               return_when=asyncio.FIRST_EXCEPTION)
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            self.close()

    async def pipe(self, reader, writer):
        """Copy one direction: read, hold for the delay, write, in order.
        A reader and a writer task joined by a queue, so that the delay
        is latency, not a limit on throughput."""
        q = asyncio.Queue()

        async def read():
            while True:
                await self.proxy.flowing()
                try:
                    data = await reader.read(CHUNK)
                except OSError as e:
                    data = e
                await q.put((time.monotonic() + self.proxy.delay, data))
                if not data or isinstance(data, OSError):
                    return

        async def write():
            while True:
                due, data = await q.get()
                wait = due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                await self.proxy.flowing()
                if isinstance(data, OSError):
                    raise data
                if not data:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(data)
                await writer.drain()

        r = asyncio.ensure_future(read())
        try:
            await write()
        finally:
            r.cancel()

    def reset(self):
        """RST both sides (SO_LINGER 0, then close)."""
        self.dead = True
        for w in (self.cwriter, self.swriter):
            if w is None:
                continue
            s = w.get_extra_info("socket")
            try:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                             struct.pack("ii", 1, 0))
            except OSError:
                pass
            w.transport.abort()
        for t in self.tasks:
            t.cancel()

    def close(self):
        for t in self.tasks:
            t.cancel()
        for w in (self.cwriter, self.swriter):
            if w is not None:
                w.close()
        self.proxy.links.discard(self)


def nodelay(writer):
    s = writer.get_extra_info("socket")
    try:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass


class Proxy:
    def __init__(self, host, port):
        self.host, self.port = host, port
        self.mode = "open"          # open, cut, blackhole
        self.delay = 0.0            # seconds, each direction
        self.links = set()
        self.accepted = 0
        self.open = asyncio.Event()
        self.open.set()
        self.done = asyncio.Event()

    async def flowing(self):
        await self.open.wait()

    async def client(self, reader, writer):
        self.accepted += 1
        nodelay(writer)
        link = Link(self, reader, writer)
        if self.mode == "cut":
            return link.reset()
        self.links.add(link)
        await link.run()

    def command(self, line):
        words = line.split()
        if not words:
            return "error empty command"
        cmd, args = words[0], words[1:]
        if cmd == "cut" and not args:
            self.mode = "cut"
            # Set the event first: held links wake and see the mode.
            self.open.set()
            for link in list(self.links):
                link.reset()
        elif cmd == "blackhole" and not args:
            self.mode = "blackhole"
            self.open.clear()
        elif cmd == "restore" and not args:
            self.mode = "open"
            self.open.set()
        elif cmd == "delay" and len(args) == 1 and args[0].isdigit():
            self.delay = int(args[0]) / 1000.0
        elif cmd == "status" and not args:
            pass
        elif cmd == "quit" and not args:
            self.done.set()
        else:
            return "error unknown command: " + line.strip()
        return "ok %s %d %d %d" % (self.mode, round(self.delay * 1000),
                                   len(self.links), self.accepted)

    async def control(self, reader, writer):
        try:
            line = await reader.readline()
            writer.write((self.command(line.decode()) + "\n").encode())
            await writer.drain()
        finally:
            writer.close()


async def serve(target, ctl_path, port_file):
    host, _, port = target.rpartition(":")
    proxy = Proxy(host or "127.0.0.1", int(port))
    loop = asyncio.get_running_loop()

    def stop(sig):
        print("netproxy: %s: stopping" % signal.Signals(sig).name,
              file=sys.stderr, flush=True)
        proxy.done.set()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(sig, stop, sig)
    server = await asyncio.start_server(proxy.client, "127.0.0.1", 0,
                                        backlog=128)
    if os.path.exists(ctl_path):
        os.unlink(ctl_path)
    ctl = await asyncio.start_unix_server(proxy.control, ctl_path)
    listen_port = server.sockets[0].getsockname()[1]
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % listen_port)
    os.rename(port_file + ".tmp", port_file)
    await proxy.done.wait()
    server.close()
    ctl.close()
    for link in list(proxy.links):
        link.reset()
    try:
        os.unlink(ctl_path)
    except OSError:
        pass


def ctl(path, words):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    try:
        s.connect(path)
        s.sendall((" ".join(words) + "\n").encode())
        out = b""
        while not out.endswith(b"\n"):
            b = s.recv(4096)
            if not b:
                break
            out += b
    except OSError as e:
        sys.exit("netproxy: %s: %s" % (path, e.strerror or e))
    answer = out.decode().strip()
    print(answer)
    return 0 if answer.startswith("ok") else 1


def main(argv):
    if len(argv) >= 3 and argv[0] == "ctl":
        return ctl(argv[1], argv[2:])
    if argv[:1] == ["serve"]:
        opts = dict(zip(argv[1::2], argv[2::2]))
        try:
            asyncio.run(serve(opts["--target"], opts["--control"],
                              opts["--port-file"]))
        except KeyError as e:
            sys.exit("netproxy: serve needs %s" % e)
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
