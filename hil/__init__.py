"""Hardware-in-the-loop: benchmarks, recorded-traffic scenarios and rig tooling."""
