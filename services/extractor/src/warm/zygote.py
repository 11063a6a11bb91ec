# The warm runner: one python per yt-dlp release that has imported yt-dlp (and compiled its extractors' URL patterns)
# and does nothing else but fork one child per run, so that a run starts in milliseconds instead of a python start and
# `import yt_dlp`.
#
# Usage: <release's python> -I zygote.py VARIANT SOCKET   (VARIANT: user|sysadmin|none; SOCKET: an abstract socket name)
#
# Per run (one connection from the extractor, which alone may connect: its pid is checked):
#   extractor -> one JSON line {argv, env, cwd, proxySocket, port}
#   runner    -> frames (1 byte tag, 4 bytes big-endian length, payload): "p" the run's process group (the runner's
#                pid, JSON), "o"/"e" yt-dlp's stdout/stderr bytes, "x" how it ended (JSON {code, signal}).
# The process tree of a run, set up exactly as confine.py sets up a cold one:
#   zygote ── runner (new session: the run's process group; dies with the zygote; enters the run's namespaces)
#               └── yt-dlp (PID 1 of the run's PID namespace; dies with the runner) ── relay, ffmpeg, curl ...
# The runner closes the extractor's connection only after "x"; a connection that ends without it means the run was
# lost (the runner or the zygote died). When the extractor closes the connection, the runner kills the whole group.
#
# Nothing passes from one run to the next: the zygote never parses a request, builds a YoutubeDL or touches the
# network; every run is a fresh fork of that state and takes its own environment, working directory, cookies file
# and namespaces with it when it exits.
import gc
import json
import os
import select
import signal
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sandbox"))
import confinement  # noqa: E402

HEADER = struct.Struct(">cI")
CHUNK = 64 * 1024
REQUEST_LIMIT = 1024 * 1024
REQUEST_TIMEOUT_S = 30
SO_PEERCRED = 17


def preload():
    """What every run would do first and is the same in each: import yt-dlp and its extractors, and compile each
    extractor's URL patterns (a run by URL tries them in turn; for a URL no site extractor claims, that is about 0.5 s
    of CPU). Code and what follows from code alone: nothing of any run, no YoutubeDL, no network."""
    import yt_dlp  # noqa: F401
    import yt_dlp.options  # noqa: F401
    from yt_dlp.extractor import gen_extractor_classes, generic, import_extractors  # noqa: F401
    from yt_dlp.version import __version__

    import_extractors()
    for extractor in gen_extractor_classes():
        try:
            extractor._match_valid_url("")
        except Exception:  # noqa: BLE001 - a speed-up only: an extractor whose pattern this fails on compiles it in its run
            pass
    return __version__


def send(conn, tag, payload):
    conn.sendall(HEADER.pack(tag, len(payload)) + payload)


def read_request(conn):
    conn.settimeout(REQUEST_TIMEOUT_S)
    data = b""
    while b"\n" not in data:
        chunk = conn.recv(CHUNK)
        if not chunk or len(data) > REQUEST_LIMIT:
            os._exit(0)
        data += chunk
    conn.settimeout(None)
    return json.loads(data.split(b"\n", 1)[0])


def start_yt_dlp(request, stdout_w, stderr_w):
    """In the run's child, PID 1 of its namespaces: its network, stdio, directory and environment, then yt-dlp."""
    if request["variant"] != "none":
        confinement.open_network(request["proxySocket"], request["port"])
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(stdout_w, 1)
    os.dup2(stderr_w, 2)
    for fd in (devnull, stdout_w, stderr_w):
        os.close(fd)
    if request["cwd"] is not None:
        os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = ["yt-dlp", *request["argv"]]


def pump(conn, stdout_r, stderr_r):
    """Copies the run's output to the extractor as frames until both pipes end; kills the run if the extractor goes."""
    tags = {stdout_r: b"o", stderr_r: b"e"}
    while tags:
        readable, _, _ = select.select([conn, *tags], [], [])
        if conn in readable:
            # The extractor closed the run (canceled, timed out) or went away: the whole group, this runner included.
            os.killpg(0, signal.SIGKILL)
        for fd in readable:
            if fd is conn:
                continue
            data = os.read(fd, CHUNK)
            if data:
                send(conn, tags[fd], data)
            else:
                os.close(fd)
                del tags[fd]


def runner(conn, zygote, extractor, variant):
    """The forked child that owns one run. Returns only in yt-dlp's process, with the request to run."""
    os.setsid()
    confinement.die_with_parent(zygote)
    pid, _, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, SO_PEERCRED, struct.calcsize("3i")))
    if pid != extractor:
        os._exit(1)
    request = read_request(conn)
    request["variant"] = variant
    send(conn, b"p", json.dumps({"pgid": os.getpid()}).encode())
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    try:
        if variant != "none":
            confinement.enter_namespaces(variant)
        me = os.getpid()
        child = os.fork()
    except OSError as error:
        send(conn, b"e", f"warm runner: {error.strerror}\n".encode())
        send(conn, b"x", json.dumps({"code": 1, "signal": None}).encode())
        os._exit(0)
    if child == 0:
        try:
            confinement.die_with_parent(me)
            conn.close()
            os.close(stdout_r)
            os.close(stderr_r)
            start_yt_dlp(request, stdout_w, stderr_w)
        except BaseException as error:  # noqa: BLE001 - reported like confine.py reports a tool it cannot start
            os.write(2, f"confine: cannot run yt-dlp: {error}\n".encode())
            os._exit(127)
        return request
    os.close(stdout_w)
    os.close(stderr_w)
    # SIGINT to the run's group stops a live recording: yt-dlp finishes its file; this runner keeps pumping meanwhile.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pump(conn, stdout_r, stderr_r)
    _, status = os.waitpid(child, 0)
    ended = (
        {"code": None, "signal": os.WTERMSIG(status)}
        if os.WIFSIGNALED(status)
        else {"code": os.WEXITSTATUS(status), "signal": None}
    )
    send(conn, b"x", json.dumps(ended).encode())
    os._exit(0)


def serve(listener, variant):
    """Forks a runner per connection; returns only in a run's yt-dlp process. Ends when the extractor closes stdin."""
    zygote, extractor = os.getpid(), os.getppid()
    while True:
        readable, _, _ = select.select([listener, 0], [], [], 1.0)
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if 0 in readable and os.read(0, 4096) == b"":
            sys.exit(0)
        if listener not in readable:
            continue
        conn, _ = listener.accept()
        if os.fork() == 0:
            try:
                listener.close()
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                os.close(devnull)
                return runner(conn, zygote, extractor, variant)
            except BaseException:  # noqa: BLE001 - a runner never goes back into the zygote's loop
                os._exit(1)
        conn.close()


def main():
    variant, name = sys.argv[1], sys.argv[2]
    confinement.die_with_parent(os.getppid())
    version = preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind("\0" + name)
    listener.listen(64)
    # Children share the imported objects copy-on-write: keep the collector from touching (and so copying) them.
    gc.freeze()
    sys.stdout.write(json.dumps({"ready": True, "version": version, "pid": os.getpid()}) + "\n")
    sys.stdout.flush()
    request = serve(listener, variant)
    listener.close()
    del request
    import yt_dlp

    yt_dlp.main(sys.argv[1:])


main()
