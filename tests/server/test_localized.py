"""Refusals in the caller's language, through a real server: ``accept-language: ar`` gives the
Arabic LocalizedMessage, no header (or English) the English one; the ErrorInfo is the same."""

from __future__ import annotations

import grpc
import pytest
from baloot_client import EngineClient, IllegalActionError
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import engine_service_pb2_grpc as pb_grpc
from baloot.v1 import rules_pb2

from .conftest import InProcessServer


def _refusal(
    channel: grpc.Channel, metadata: tuple[tuple[str, str], ...]
) -> tuple[grpc.StatusCode, error_details_pb2.ErrorInfo, error_details_pb2.LocalizedMessage]:
    stub = pb_grpc.BalootEngineServiceStub(channel)
    created = stub.CreateMatch(
        pb.CreateMatchRequest(
            rules=rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA), first_dealer=0
        ),
        timeout=5,
    )
    request = pb.DealRoundRequest(
        state=created.state,
        match_id=created.match_id,
        credential=created.host_credential,
        seat=2,  # seat 0 deals
        expected_version=created.state_version,
    )
    with pytest.raises(grpc.RpcError) as raised:
        stub.DealRound(request, timeout=5, metadata=metadata)
    status = rpc_status.from_call(raised.value)
    assert status is not None
    info, localized = error_details_pb2.ErrorInfo(), error_details_pb2.LocalizedMessage()
    assert status.details[0].Unpack(info)
    assert status.details[1].Unpack(localized)
    return raised.value.code(), info, localized


@pytest.mark.parametrize(
    ("metadata", "locale", "message"),
    [
        ((), "en", "It is not your turn. It is seat 0's turn."),
        ((("accept-language", "en-GB"),), "en", "It is not your turn. It is seat 0's turn."),
        ((("accept-language", "ar"),), "ar-SA", "مو دورك. الدور على المقعد 0."),
        ((("accept-language", "ar-SA,en;q=0.5"),), "ar-SA", "مو دورك. الدور على المقعد 0."),
    ],
)
def test_a_refusal_speaks_the_callers_language(
    channel: grpc.Channel, metadata: tuple[tuple[str, str], ...], locale: str, message: str
) -> None:
    code, info, localized = _refusal(channel, metadata)
    assert code is grpc.StatusCode.FAILED_PRECONDITION
    assert (info.reason, dict(info.metadata)) == ("NOT_YOUR_TURN", {"turn": "0"})
    assert (localized.locale, localized.message) == (locale, message)


def test_a_body_that_does_not_parse_is_refused_in_arabic_too(channel: grpc.Channel) -> None:
    call = channel.unary_unary(
        "/baloot.v1.BalootEngineService/GetView",
        request_serializer=lambda raw: raw,
        response_deserializer=lambda raw: raw,
    )
    with pytest.raises(grpc.RpcError) as raised:
        call(b"\xff\xff\xff", timeout=5, metadata=(("accept-language", "ar"),))
    status = rpc_status.from_call(raised.value)
    assert status is not None
    localized = error_details_pb2.LocalizedMessage()
    assert status.details[1].Unpack(localized)
    assert (localized.locale, localized.message) == ("ar-SA", "الطلب فيه خطأ.")


def test_the_python_client_asks_and_reads_the_language(server: InProcessServer) -> None:
    client = EngineClient.connect(server.target, language="ar")
    match = client.create_match(first_dealer=0)
    with pytest.raises(IllegalActionError) as raised:
        match.deal(1)
    assert raised.value.reason == "NOT_YOUR_TURN"
    assert raised.value.localized == ("ar-SA", "مو دورك. الدور على المقعد 0.")
    client.language = None
    with pytest.raises(IllegalActionError) as raised:
        match.deal(1)
    assert raised.value.localized == ("en", "It is not your turn. It is seat 0's turn.")
