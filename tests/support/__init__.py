"""Helpers shared by test modules: MQTT probes for brokers started by the fixtures."""
