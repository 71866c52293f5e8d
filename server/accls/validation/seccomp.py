"""A seccomp filter for `verify` runs: no UNIX sockets, no io_uring.

The network namespace cuts the network and abstract sockets, but a socket
file on a visible (even read-only) path still connects to a host service. So
the sandboxed program may not create AF_UNIX sockets at all, nor use io_uring,
whose requests would bypass the filter. The filter is classic BPF, as bwrap's
`--seccomp FD` expects: an array of `struct sock_filter`.
"""

from __future__ import annotations

import platform
import socket
import struct

__all__ = ["unix_socket_filter"]

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06

_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000
_EACCES = 13
_EPERM = 1

_OFFSET_NR = 0
_OFFSET_ARCH = 4
_OFFSET_ARG0 = 16  # low 32 bits on little-endian machines
_X32_BIT = 0x40000000
_IO_URING_SETUP = 425  # the same number on every 64-bit architecture

# machine -> (AUDIT_ARCH_*, number of socket()); both little-endian.
_ARCHES = {
    "x86_64": (0xC000003E, 41),
    "aarch64": (0xC00000B7, 198),
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The compiled filter for this machine, or None where it is not known."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, socket_nr = arch
    program = [
        _op(_LD_W_ABS, _OFFSET_ARCH),
        _op(_JEQ_K, audit_arch, jt=1),
        _op(_RET_K, _RET_KILL_PROCESS),  # another ABI (i386 via int 0x80)
        _op(_LD_W_ABS, _OFFSET_NR),
        _op(_JGE_K, _X32_BIT, jf=1),
        _op(_RET_K, _RET_KILL_PROCESS),  # the x32 ABI
        _op(_JEQ_K, _IO_URING_SETUP, jf=1),
        _op(_RET_K, _RET_ERRNO | _EPERM),
        _op(_JEQ_K, socket_nr, jt=1),
        _op(_RET_K, _RET_ALLOW),
        _op(_LD_W_ABS, _OFFSET_ARG0),
        _op(_JEQ_K, socket.AF_UNIX, jf=1),
        _op(_RET_K, _RET_ERRNO | _EACCES),
        _op(_RET_K, _RET_ALLOW),
    ]
    return b"".join(program)
