"""The integration tier: tests that run real processes, servers and engines."""
