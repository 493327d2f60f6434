"""One contract suite per device class: emulator by default, real hardware when named."""
