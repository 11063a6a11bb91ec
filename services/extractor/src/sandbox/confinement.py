# The confinement of one run, for both ways a run starts: confine.py (a tool exec'd cold) and the warm runner
# (warm/zygote.py, a yt-dlp forked from a process that imported it). A user, network and PID namespace whose only way
# out is a relay from 127.0.0.1:<port> to the run's egress proxy's Unix socket. Standard library only (runs under -S).
import ctypes
import fcntl
import os
import signal
import socket
import struct
import threading

CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1

# "user": an unprivileged user namespace first (no capability needed); "sysadmin": network and PID namespaces alone,
# for a process that holds CAP_SYS_ADMIN where user namespaces are not allowed.
NAMESPACES = {
    "user": CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID,
    "sysadmin": CLONE_NEWNET | CLONE_NEWPID,
}

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
CHUNK = 256 * 1024

_libc = ctypes.CDLL(None, use_errno=True)


def _fail(call):
    errno = ctypes.get_errno()
    raise OSError(errno, f"{call}: {os.strerror(errno)}")


def enter_namespaces(variant):
    """Moves this process into fresh namespaces (as `unshare --user --map-root-user --net --pid` does): its next child
    becomes PID 1 of a new PID namespace, with a network namespace that has nothing but a loopback interface (down)."""
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(NAMESPACES[variant]) != 0:
        _fail("unshare")
    if variant == "user":
        # The process is root inside the namespace, the service's own user outside (--map-root-user).
        for path, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
            with open(f"/proc/self/{path}", "w") as f:
                f.write(text)


def die_with_parent(parent):
    """SIGKILL when `parent` exits (unshare's --kill-child); exits at once if it is gone already. A child that is PID 1
    of a new PID namespace sees its parent (outside) as 0: it cannot tell, but it shares its parent's process group,
    which is how every run is stopped."""
    if _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        _fail("prctl")
    if os.getppid() not in (parent, 0):
        os._exit(1)


def _loopback_up():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = struct.unpack("16sH22x", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sH22x", b"lo", 0)))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))


def _copy(src, dst):
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


def _bridge(client, path):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
        outbound = threading.Thread(target=_copy, args=(client, upstream), daemon=True)
        outbound.start()
        _copy(upstream, client)
        outbound.join()
    except OSError:
        pass
    finally:
        client.close()
        upstream.close()


def _relay(listener, path):
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    # Only its listener: the tool's output pipes stay the tool's (they end when the tool's processes end).
    keep = listener.fileno()
    os.closerange(3, keep)
    os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
    while True:
        client, _ = listener.accept()
        threading.Thread(target=_bridge, args=(client, path), daemon=True).start()


def open_network(proxy_socket, port):
    """Inside the run's namespaces, in the process that becomes the tool (PID 1): loopback up and, with a proxy, the
    relay listening on 127.0.0.1:<port> (the address the run's proxy URL names), before the tool starts, so its first
    connection never races the relay. The relay is a child of PID 1: the kernel kills it when the tool exits."""
    _loopback_up()
    if proxy_socket is None:
        return
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)
    if os.fork() == 0:
        try:
            _relay(listener, proxy_socket)
        finally:
            os._exit(0)
    listener.close()


def exit_like(status):
    """Ends this process the way the child whose wait status this is ended: same exit code, or the same signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
