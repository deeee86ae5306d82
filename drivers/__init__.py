"""Hardware drivers: each a pure codec plus a transport (card shoe, camera, MQTT, storage)."""
