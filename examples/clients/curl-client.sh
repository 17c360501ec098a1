#!/bin/sh
# A client in plain shell (curl in a loop), to show the card grades any language:
#   npx petstore-mock check-client -- sh examples/clients/curl-client.sh
# It sends the key as a Bearer token, gives every request 2 seconds, honours Retry-After (seconds or an HTTP-date)
# when it is short, retries a GET after a 5xx or a dropped connection with growing, jittered waits, and never sends a
# POST twice. Exit 0: a result; 1: an error (printed on stderr).
set -u
url="$PETSTORE_MOCK_URL" key="$PETSTORE_MOCK_KEY" headers=$(mktemp) body=$(mktemp)
trap 'rm -f "$headers" "$body"' EXIT
case "$PETSTORE_MOCK_TASK" in
  list-pets) method=GET path=/pets data= ;;
  get-pet) method=GET path="/pets/$PETSTORE_MOCK_PET_ID" data= ;;
  create-pet) method=POST path=/pets data='{"name":"Rex","categoryId":1}' ;;
  *) echo "unknown task $PETSTORE_MOCK_TASK" >&2; exit 2 ;;
esac
attempt=0 wait_ms=250
while :; do
  if [ -n "$data" ]; then
    status=$(curl -s -o "$body" -D "$headers" -w '%{http_code}' --max-time 2 -X POST -H "Authorization: Bearer $key" \
      -H 'Content-Type: application/json' --data "$data" "$url$path")
  else
    status=$(curl -s -o "$body" -D "$headers" -w '%{http_code}' --max-time 2 -H "Authorization: Bearer $key" "$url$path")
  fi
  case "$status" in 2??) exit 0 ;; esac
  attempt=$((attempt + 1))
  [ "$attempt" -gt 3 ] && break
  if [ "$status" = 429 ]; then
    after=$(tr -d '\r' < "$headers" | sed -n 's/^[Rr]etry-[Aa]fter: *//p' | head -n 1)
    case "$after" in
      ''|*[!0-9]*) seconds=$(( $(date -d "$after" +%s 2>/dev/null || echo 0) - $(date +%s) + 1 )) ;;
      *) seconds=$after ;;
    esac
    [ "$seconds" -gt 5 ] && break # longer than this client will wait: surface the 429
    sleep "$seconds"
  elif [ "$method" = GET ] && { [ "$status" = 000 ] || [ "$status" -ge 500 ]; }; then
    # Equal jitter: half the wait fixed, half random.
    sleep "$(awk -v ms="$wait_ms" -v r="$(od -An -N2 -tu2 /dev/urandom)" 'BEGIN { printf "%.3f", (ms / 2 + (r % 1000) / 1000 * ms / 2) / 1000 }')"
    wait_ms=$((wait_ms * 2))
  else
    break
  fi
done
echo "$method $path answered $status: $(cat "$body")" >&2
exit 1
