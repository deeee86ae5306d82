"""Display simulators: a checking subscriber (the test oracle) and the terminal display."""
