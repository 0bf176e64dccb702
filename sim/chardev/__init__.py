"""The simulated board at the kernel's character devices, through CUSE, in pure Python.

So that the real service runs unmodified in an emulated Linux machine, the board is served
where the Pi's kernel would put it: `/dev/i2c-1` (i2c-dev) for the expanders and muxes, and
`/dev/spidev0.0` (spidev) for the LED chain's data. Blinka, Adafruit_PureIO and i2c-tools talk
to them with the same syscalls and ioctls as on a Pi.

- `fuse`: the FUSE/CUSE wire protocol: request and reply structures, opcodes.
- `ioctl`: unrestricted ioctls, reaching the caller's memory through the kernel's retries.
- `server`: one CUSE connection serving one `CharDevice`.
- `stall`: a bus that stops answering (a hung bus).
- `i2cdev`, `spidev`: what Linux's i2c-dev and spidev do, on the simulated models.
- `electronics`: the board's models wired from a BoardSpec, under the world.
- `clock`: real time for the world, as the service in the machine runs on it.
- `gpiosim`: the Pi's GPIO0-27 as a gpio-sim chip, the INT and button lines bridged onto it.
- `world_channel`: the world's orders (hands, faults, what the LEDs show) as JSON requests on
  the virtio-serial port `org.magboard.world`.
- `daemon`, `__main__`: all of it running (`python -m magboard.sim.chardev --board r1`).
"""
