"""MQTT: the controller's link to the broker (paho-mqtt, MQTT 3.1.1)."""
