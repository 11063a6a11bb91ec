# Starts one tool cold, confined: enters the run's namespaces (confinement.py), then the tool becomes PID 1 of its PID
# namespace, with the relay to its egress proxy listening before it starts. This process waits outside the PID
# namespace and ends as the tool ended (as `unshare --fork --kill-child` does).
# Usage: python3 -I -S confine.py user|sysadmin SOCKET_PATH|- PORT TOOL [ARG...]   ("-": no relay, no network at all)
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import confinement  # noqa: E402


def main():
    variant, path, port, argv = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
    try:
        confinement.enter_namespaces(variant)
    except OSError as error:
        sys.stderr.write(f"confine: {error.strerror}\n")
        sys.exit(1)
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        confinement.die_with_parent(parent)
        try:
            confinement.open_network(None if path == "-" else path, port)
            os.execvp(argv[0], argv)
        except OSError as error:
            sys.stderr.write(f"confine: cannot run {argv[0]}: {error.strerror}\n")
        os._exit(127)
    # SIGINT to the run's group stops a live recording (RunStart.ts): the tool finishes its file and exits, and this
    # process waits for it instead of dying first (which would kill the tool through its parent-death signal).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _, status = os.waitpid(child, 0)
    confinement.exit_like(status)


main()
