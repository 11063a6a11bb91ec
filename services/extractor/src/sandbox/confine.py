# Runs inside a fresh network namespace: brings loopback up, relays 127.0.0.1:<port> to the egress proxy's Unix
# socket, then becomes the tool. The namespace has no other interface, so the relay is the only way out.
# Usage: python3 -I -S confine.py SOCKET_PATH|- PORT TOOL [ARG...]   ("-": no relay, no network at all)
import fcntl
import os
import socket
import struct
import sys
import threading

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
CHUNK = 256 * 1024


def loopback_up():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = struct.unpack("16sH22x", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sH22x", b"lo", 0)))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))


def copy(src, dst):
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    try:
        while True:
            n = src.recv_into(buf)
            if n == 0:
                break
            dst.sendall(view[:n])
    except OSError:
        pass
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def bridge(client, path):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
        outbound = threading.Thread(target=copy, args=(client, upstream), daemon=True)
        outbound.start()
        copy(upstream, client)
        outbound.join()
    except OSError:
        pass
    finally:
        client.close()
        upstream.close()


def relay(listener, path):
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=bridge, args=(client, path), daemon=True).start()


def main():
    path, port, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    loopback_up()
    if path != "-":
        # Bound and listening before the tool starts: its first connection can never race the relay.
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(128)
        if os.fork() == 0:
            # The tool becomes PID 1 of this PID namespace: when it exits, the kernel kills the relay with it.
            try:
                relay(listener, path)
            finally:
                os._exit(0)
        listener.close()
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        sys.stderr.write(f"confine: cannot run {argv[0]}: {error.strerror}\n")
        sys.exit(127)


main()
