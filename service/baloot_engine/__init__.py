"""Baloot engine: a stateless gRPC rules authority for Baloot (بلوت)."""

__version__ = "0.2.0"
