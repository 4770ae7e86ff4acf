"""The pure rules core: cards, rule variants, match state, legality, scoring.

Nothing in this package imports gRPC, protobuf, structlog or prometheus.
"""
