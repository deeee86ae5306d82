"""Hardware simulators that speak the real wire protocols: shoe, camera, dealer, displays."""
