# SPDX-License-Identifier: MIT
"""squat.py — a hostile local user's squatter for the hello sockets.

Binds every abstract name @wpptrace-all-0..3 (wpp_hello.h), listens with a
backlog of 0 and fills that backlog with a connection of its own, then
never accepts: a blocking connect() to any of the names now sleeps in the
kernel.  Writes "ready" to stdout once all names are held, then waits to
be killed.  Run as another user (the runtime trusts only root's).
"""
import signal
import socket
import sys

held = []
for slot in range(4):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind("\0wpptrace-all-%d" % slot)
    except OSError as e:
        sys.exit("squat: cannot bind slot %d: %s" % (slot, e))
    s.listen(0)
    filler = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    filler.connect("\0wpptrace-all-%d" % slot)
    held += [s, filler]
print("ready", flush=True)
signal.pause()
