"""The gRPC adapter: the servicer of ``baloot.v1.BalootEngineService`` and its conversions.

This layer turns protobuf requests into calls of the rules core and the results back into
protobuf responses; it holds no rules itself. Requests become core values in
:mod:`~baloot_engine.api.inbound`, core values become messages in
:mod:`~baloot_engine.api.outbound`. It logs and counts through :mod:`baloot_engine.telemetry`
and never imports :mod:`baloot_engine.server`.
"""
