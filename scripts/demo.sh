#!/usr/bin/env bash
# Starts fakecloud on testdata/worlds/small.yaml and explores it with curl,
# narrating each step. Ctrl-C (or the end of the tour) stops everything.
set -o errexit -o nounset -o pipefail
REPO_ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO_ROOT"

PORT=${FAKECLOUD_PORT:-18080}
TOKEN=fakefakefakefakefakefakefakefakefakefakefakefakefakefakefakefake
API="http://127.0.0.1:$PORT/v1"
LOG=$(mktemp -t fakecloud-demo.XXXXXX.log)

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
api() { curl -sS -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' "$@"; }

step "starting fakecloud on $API (log: $LOG)"
./bin/fakecloud --listen "127.0.0.1:$PORT" --seed testdata/worlds/small.yaml --action-duration 300ms >"$LOG" 2>&1 &
PID=$!
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true' EXIT INT TERM
for _ in $(seq 1 50); do
  curl -sf -o /dev/null -H "Authorization: Bearer $TOKEN" "$API/locations" && break
  sleep 0.1
done

step "servers of the seeded world (name, status, private IP)"
api "$API/servers" | python3 -c 'import json,sys
for s in json.load(sys.stdin)["servers"]:
    print("  %-16s %-8s %s" % (s["name"], s["status"], s["private_net"][0]["ip"] if s["private_net"] else "-"))'

step "power worker-2 on and follow its action until it finishes"
ID=$(api "$API/servers?name=worker-2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["servers"][0]["id"])')
ACTION=$(api -X POST "$API/servers/$ID/actions/poweron" | python3 -c 'import json,sys; print(json.load(sys.stdin)["action"]["id"])')
for _ in $(seq 1 20); do
  STATUS=$(api "$API/actions/$ACTION" | python3 -c 'import json,sys; a=json.load(sys.stdin)["action"]; print(a["status"], a["progress"])')
  echo "  action $ACTION: $STATUS"
  case "$STATUS" in success*|error*) break ;; esac
  sleep 0.1
done

step "load balancer 'ingress': label selector role=worker resolves to the workers"
api "$API/load_balancers?name=ingress" | python3 -c 'import json,sys
lb=json.load(sys.stdin)["load_balancers"][0]
print("  public IPv4", lb["public_net"]["ipv4"]["ip"], "private", lb["private_net"][0]["ip"])
for t in lb["targets"]:
    for s in t.get("targets", []):
        print("  target server", s["server"]["id"], "via", s["server"]["ip"], [h["status"] for h in s["health_status"]])'

step "add a route for a pod CIDR, then show the network's routes"
api -X POST "$API/networks/$(api "$API/networks?name=cluster" | python3 -c 'import json,sys; print(json.load(sys.stdin)["networks"][0]["id"])')/actions/add_route" \
  -d '{"destination":"10.244.0.0/24","gateway":"10.0.0.3"}' >/dev/null
sleep 0.4
api "$API/networks?name=cluster" | python3 -c 'import json,sys; print("  routes:", json.load(sys.stdin)["networks"][0]["routes"])'

step "a malformed request gets the API's error envelope"
api -X POST "$API/servers" -d '{"name": 42}'; echo

step "script a failure: the next GET /servers answers 503 (fakecloud faults add ...)"
FC="./bin/fakecloud --url http://127.0.0.1:$PORT"
$FC faults add '{method: GET, path: /servers, status: 503, count: 1}' >/dev/null
api "$API/servers"; echo
api "$API/servers" | python3 -c 'import json,sys; print("  and then:", len(json.load(sys.stdin)["servers"]), "servers")'

step "an out-of-band event: worker-1 is powered off behind the API's back (fakecloud event ...)"
$FC event '{type: power_off_server, server_name: worker-1}'
api "$API/servers?name=worker-1" | python3 -c 'import json,sys; print("  worker-1 is", json.load(sys.stdin)["servers"][0]["status"])'

step "request counters (fakecloud counters)"
$FC counters

step "rate limit headers"
curl -sS -o /dev/null -D - -H "Authorization: Bearer $TOKEN" "$API/servers" | grep -i '^ratelimit'

step "done; fakecloud's request log:"
tail -n 5 "$LOG"
