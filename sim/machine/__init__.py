"""The emulated machine: the simulator at the kernel's boundary.

A QEMU machine (TCG, no KVM; a PC, or the Pi's arm64 with `MAGBOARD_HIL_ARCH=arm64`) booting
a small kernel built from Debian's linux-source with gpio-sim, CUSE, I2C and SPI device nodes
built in, and a Debian bookworm root file system made by mmdebstrap, for tests that run the real
stack (systemd unit, device nodes, power cuts) rather than the Python fakes. `build.py` builds
and caches it outside the repository, `vm.py` boots it, `agent.py` runs inside it and answers
the host's commands over a virtio-serial port.
"""
