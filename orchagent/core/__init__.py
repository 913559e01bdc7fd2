"""What every orch stands on: dependencies, the interface registry, events, consumer wiring."""
