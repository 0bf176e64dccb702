"""A CUSE server: one character device served over one `/dev/cuse` channel.

Opening `/dev/cuse` makes a connection; the kernel sends CUSE_INIT on it, and the reply names
the device (`DEVNAME=i2c-1`), which the kernel then creates (`/dev/i2c-1` through devtmpfs).
From then on every open, read, write, ioctl and close of that device arrives as a request on the
channel, and the caller's syscall waits until the reply is written (`fs/fuse/cuse.c`).

The server answers one request at a time, in the order read. What the device does is a
`CharDevice`: per-open state from `open`, then `read`, `write`, `ioctl` and `release` on it,
OSError for a failure (its errno is what the caller gets). Anything else a device raises is a
bug or a model's refusal (an unemulated register): it is logged and answered EIO, and the server
carries on. A reply the kernel no longer wants (the caller was interrupted or died: ENOENT) is
dropped. A request whose device raises `Held` (its bus is stalled) is kept unanswered until the
stall ends or times out.

The channel may be any file descriptor that keeps message boundaries, one request a read and
one reply a write: `/dev/cuse`, or a SOCK_SEQPACKET socket standing in for the kernel in tests.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import selectors
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from . import fuse
from .fuse import (
    CuseInitFlag,
    CuseInitIn,
    CuseInitOut,
    FlushIn,
    InterruptIn,
    IoctlFlag,
    IoctlIn,
    Opcode,
    OpenFlag,
    OpenIn,
    OpenOut,
    ProtocolError,
    ReadIn,
    ReleaseIn,
    Request,
    WriteIn,
    WriteOut,
)
from .ioctl import IoctlCall, NeedMemory, UserMemory, done_payload, retry_payload
from .stall import Held, Stall

log = logging.getLogger(__name__)

MAX_READ = 65536
"""The largest read the kernel forwards as one request. Larger than i2c-dev's 8192-byte cap and
spidev's buffer, so a device's short answer, not the kernel, splits a caller's big read."""
MAX_WRITE = 65536
"""Likewise for writes; the kernel never forwards an empty write (`fuse_direct_io`)."""

_MAX_PAGES = 32  # FUSE_DEFAULT_MAX_PAGES_PER_REQ: CUSE never raises it
_LARGEST_PAGE = 65536  # arm64 may run with 64 KiB pages
READ_BUFFER = fuse.InHeader.packed_size() + IoctlIn.packed_size() + _MAX_PAGES * _LARGEST_PAGE
"""Room for the largest request: an ioctl with all the memory one may copy in. The kernel also
insists on at least FUSE_MIN_READ_BUFFER and a whole write's worth."""


class CharDevice(Protocol):
    """What a served device implements. `handle` is whatever `open` returned for that open."""

    name: str

    def open(self, flags: int) -> object: ...

    def release(self, handle: object) -> None: ...

    def read(self, handle: object, size: int) -> bytes: ...

    def write(self, handle: object, data: bytes) -> int: ...

    def ioctl(self, handle: object, call: IoctlCall) -> int: ...


class ChannelClosedError(ConnectionError):
    """The channel ended: the kernel aborted the connection (ENODEV) or the peer closed it."""


@dataclass(frozen=True, slots=True)
class _Kept:
    """A request kept unanswered while a stall lasts."""

    request: Request
    stall: Stall
    deadline: float | None


class CuseServer:
    """Serves `device` over the channel `fd` (which the caller opened and closes)."""

    def __init__(
        self,
        fd: int,
        device: CharDevice,
        *,
        dev_major: int = 0,
        dev_minor: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fd = fd
        self.device = device
        self.dev_major = dev_major
        self.dev_minor = dev_minor
        self.minor: int | None = None
        """The protocol minor agreed in CUSE_INIT; None until then."""
        self.initialised = threading.Event()
        self._clock = clock
        self._handles: dict[int, object] = {}
        self._next_fh = itertools.count(1)
        self._kept: list[_Kept] = []
        self._watched: list[Stall] = []
        self._stopping = False
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._buffer = bytearray(READ_BUFFER)
        self._handlers: dict[int, Callable[[Request], bytes | None]] = {
            Opcode.CUSE_INIT: self._init,
            Opcode.OPEN: self._open,
            Opcode.READ: self._read,
            Opcode.WRITE: self._write,
            Opcode.IOCTL: self._ioctl,
            Opcode.FLUSH: self._flush,
            Opcode.RELEASE: self._release,
            Opcode.INTERRUPT: self._interrupt,
            Opcode.DESTROY: self._destroy,
        }

    # Running.

    @property
    def open_files(self) -> int:
        return len(self._handles)

    @property
    def kept(self) -> int:
        """Requests waiting on a stall."""
        return len(self._kept)

    def serve(self) -> None:
        """Answer requests until `stop()` or the channel ends. Blocks."""
        selector = selectors.DefaultSelector()
        os.set_blocking(self.fd, False)
        selector.register(self.fd, selectors.EVENT_READ)
        selector.register(self._wake_r, selectors.EVENT_READ)
        try:
            while not self._stopping:
                readable = False
                for key, _ in selector.select(self._next_timeout()):
                    if key.fd == self._wake_r:
                        self._drain_wake()
                    else:
                        readable = True
                self._run_kept()
                if self._stopping or not readable:
                    continue
                try:
                    data = self._receive()
                except ChannelClosedError as closed:
                    log.info("%s: %s", self.device.name, closed)
                    break
                if data is not None:
                    self.handle(data)
        finally:
            selector.close()
            self._fail_kept(errno.EIO)

    def stop(self) -> None:
        """Make `serve` return soon; safe from any thread."""
        self._stopping = True
        self.wake()

    def wake(self) -> None:
        """Make `serve` look at its kept requests again; safe from any thread."""
        with contextlib.suppress(BlockingIOError):  # a full pipe: already awake
            os.write(self._wake_w, b"\0")

    def watch(self, stall: Stall) -> None:
        """Wake whenever `stall` is engaged or released (until `close`)."""
        stall.add_listener(self.wake)
        self._watched.append(stall)

    def close(self) -> None:
        """Stop watching stalls and release the wake pipe (the channel is the caller's to
        close). After `serve` has returned."""
        for stall in self._watched:
            stall.remove_listener(self.wake)
        self._watched.clear()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def handle(self, data: bytes | memoryview) -> None:
        """Answer one request, as read from the channel."""
        try:
            request = fuse.parse_request(data)
        except ProtocolError as error:
            log.error("%s: dropped a malformed request: %s", self.device.name, error)
            return
        self._dispatch(request)

    # Dispatch.

    def _dispatch(self, request: Request) -> None:
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "%s: %s #%d from pid %d, %d bytes",
                self.device.name,
                _name(request),
                request.unique,
                request.header.pid,
                len(request.body),
            )
        handler = self._handlers.get(request.opcode)
        if handler is None:
            self._send(fuse.error_reply(request.unique, errno.ENOSYS))
            return
        try:
            answer = handler(request)
        except Held as held:
            timeout = held.stall.timeout
            deadline = None if timeout is None else self._clock() + timeout
            self._kept.append(_Kept(request, held.stall, deadline))
            return
        except OSError as error:
            code = error.errno if error.errno and 0 < error.errno < 512 else errno.EIO
            answer = fuse.error_reply(request.unique, code)
        except ProtocolError as error:
            log.warning("%s: malformed %s: %s", self.device.name, _name(request), error)
            answer = fuse.error_reply(request.unique, errno.EINVAL)
        except Exception:
            log.exception("%s: %s failed", self.device.name, _name(request))
            answer = fuse.error_reply(request.unique, errno.EIO)
        if answer is not None:
            self._send(answer)

    def _init(self, request: Request) -> bytes:
        offered = CuseInitIn.unpack_from(request.body)
        if offered.major != fuse.KERNEL_VERSION or offered.minor < fuse.LOWEST_MINOR:
            log.error(
                "%s: the kernel speaks FUSE %d.%d; this server needs %d.%d or later",
                self.device.name,
                offered.major,
                offered.minor,
                fuse.KERNEL_VERSION,
                fuse.LOWEST_MINOR,
            )
            raise OSError(errno.EPROTO, "unsupported FUSE protocol version")
        self.minor = min(offered.minor, fuse.SUPPORTED_MINOR)
        out = CuseInitOut(
            major=fuse.KERNEL_VERSION,
            minor=self.minor,
            unused=0,
            flags=int(CuseInitFlag.UNRESTRICTED_IOCTL),
            max_read=MAX_READ,
            max_write=MAX_WRITE,
            dev_major=self.dev_major,
            dev_minor=self.dev_minor,
        )
        self.initialised.set()
        return fuse.reply(request.unique, out.pack(), fuse.device_info(self.device.name))

    def _open(self, request: Request) -> bytes:
        args = OpenIn.unpack_from(request.body)
        handle = self.device.open(args.flags)
        fh = next(self._next_fh)
        self._handles[fh] = handle
        # i2c-dev and spidev refuse lseek (no_llseek); so does a nonseekable open.
        return fuse.reply(request.unique, OpenOut(fh, int(OpenFlag.NONSEEKABLE)).pack())

    def _read(self, request: Request) -> bytes:
        args = ReadIn.unpack_from(request.body)
        data = self.device.read(self._handle(args.fh), args.size)
        return fuse.reply(request.unique, data[: args.size])

    def _write(self, request: Request) -> bytes:
        args = WriteIn.unpack_from(request.body)
        data = request.body[WriteIn.packed_size() :]
        if len(data) != args.size:
            raise ProtocolError(f"a write of {args.size} bytes carried {len(data)}")
        written = self.device.write(self._handle(args.fh), data)
        return fuse.reply(request.unique, WriteOut(written).pack())

    def _ioctl(self, request: Request) -> bytes:
        args = IoctlIn.unpack_from(request.body)
        copied = request.body[IoctlIn.packed_size() :]
        if len(copied) != args.in_size:
            raise ProtocolError(f"an ioctl said {args.in_size} bytes in and carried {len(copied)}")
        handle = self._handle(args.fh)
        memory = UserMemory(copied, args.out_size)
        call = IoctlCall(args.cmd, args.arg, bool(args.flags & IoctlFlag.BITS32), memory)
        try:
            result = self.device.ioctl(handle, call)
        except NeedMemory as need:
            if not args.flags & IoctlFlag.UNRESTRICTED:
                raise OSError(errno.EIO, "a restricted ioctl cannot be retried") from None
            return fuse.reply(request.unique, retry_payload(need))
        return fuse.reply(request.unique, done_payload(result, memory.out_data()))

    def _flush(self, request: Request) -> bytes:
        self._handle(FlushIn.unpack_from(request.body).fh)
        return fuse.reply(request.unique)

    def _release(self, request: Request) -> bytes:
        args = ReleaseIn.unpack_from(request.body)
        handle = self._handles.pop(args.fh, None)
        if handle is not None:
            self.device.release(handle)
        return fuse.reply(request.unique)

    def _interrupt(self, request: Request) -> None:
        """The caller of request `unique` got a signal. Only a kept request is still ours to
        answer (every other was answered when read): it ends with EINTR. No reply to the
        interrupt itself."""
        target = InterruptIn.unpack_from(request.body).unique
        for kept in self._kept:
            if kept.request.unique == target:
                self._kept.remove(kept)
                self._send(fuse.error_reply(target, errno.EINTR))
                break
        return None

    def _destroy(self, request: Request) -> bytes:
        self._stopping = True
        return fuse.reply(request.unique)

    def _handle(self, fh: int) -> object:
        try:
            return self._handles[fh]
        except KeyError:
            raise OSError(errno.EBADF, f"no open file {fh}") from None

    # Kept requests.

    def _next_timeout(self) -> float | None:
        deadlines = [k.deadline for k in self._kept if k.deadline is not None]
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - self._clock())

    def _run_kept(self) -> None:
        """Run the requests whose stall has ended; fail those kept past their timeout."""
        if not self._kept:
            return
        now = self._clock()
        kept, self._kept = self._kept, []
        still: list[_Kept] = []
        for entry in kept:
            if not entry.stall.engaged:
                self._dispatch(entry.request)
            elif entry.deadline is not None and now >= entry.deadline:
                self._send(fuse.error_reply(entry.request.unique, entry.stall.errno))
            else:
                still.append(entry)
        self._kept = still + self._kept

    def _fail_kept(self, code: int) -> None:
        kept, self._kept = self._kept, []
        for entry in kept:
            self._send(fuse.error_reply(entry.request.unique, code))

    # The channel.

    def _receive(self) -> memoryview | None:
        try:
            count = os.readv(self.fd, [self._buffer])
        except (BlockingIOError, InterruptedError):
            return None
        except OSError as error:
            if error.errno == errno.ENOENT:
                return None  # the request was interrupted away before it could be read
            if error.errno == errno.ENODEV:
                raise ChannelClosedError("the kernel ended the connection") from error
            raise
        if count == 0:
            raise ChannelClosedError("the channel was closed")
        return memoryview(self._buffer)[:count]

    def _send(self, answer: bytes) -> None:
        if log.isEnabledFor(logging.DEBUG):
            header = fuse.OutHeader.unpack_from(answer)
            log.debug(
                "%s: #%d answered %d, %d bytes",
                self.device.name,
                header.unique,
                header.error,
                len(answer),
            )
        try:
            os.write(self.fd, answer)
        except OSError as error:
            if error.errno == errno.ENOENT:
                # The caller is gone (interrupted or killed): nobody wants this reply.
                log.debug("%s: a reply found nobody waiting", self.device.name)
            elif error.errno in (errno.ENODEV, errno.EPIPE, errno.ECONNRESET):
                self._stopping = True
            else:
                log.error("%s: the kernel refused a reply: %s", self.device.name, error)

    def _drain_wake(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while os.read(self._wake_r, 64):
                pass


def _name(request: Request) -> str:
    try:
        return Opcode(request.opcode).name
    except ValueError:
        return f"opcode {request.opcode}"
