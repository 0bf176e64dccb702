"""The simulated board at the kernel's character devices, through CUSE, in pure Python.

So that the real service runs unmodified in an emulated Linux machine, the board is served
where the Pi's kernel would put it, as character devices that Blinka, Adafruit_PureIO and
i2c-tools talk to with the same syscalls and ioctls as on a Pi.

- `fuse`: the FUSE/CUSE wire protocol: request and reply structures, opcodes.
- `ioctl`: unrestricted ioctls, reaching the caller's memory through the kernel's retries.
- `server`: one CUSE connection serving one `CharDevice`.
- `stall`: a bus that stops answering (a hung bus).
"""
