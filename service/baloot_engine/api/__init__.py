"""The gRPC adapter: the servicer of ``baloot.v1.BalootEngineService`` and its conversions.

This layer turns protobuf requests into calls of the rules core and the results back into
protobuf responses; it holds no rules itself.
"""
