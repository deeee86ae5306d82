"""The people round a simulated table: dealer, pit manager and players, over MQTT."""
