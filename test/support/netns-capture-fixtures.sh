#!/bin/sh
# Re-captures the real ping/traceroute/mtr outputs under test/fixtures/{ping,traceroute,mtr}/ from the closed
# network of netns-topology.sh (run as root, with iputils-ping and traceroute installed). Only
# loopback and the namespaces' documentation-range addresses are ever probed, always with -n.
#
# For each scenario it writes <scenario>.txt (stdout, byte for byte), <scenario>.stderr.txt (only
# when stderr was not empty) and <scenario>.cmd (where and how it ran, and the exit code). The
# expected <scenario>.json files are NOT regenerated: after a re-capture, review them by hand.
#
#   netns-capture-fixtures.sh [filter]    only the scenarios whose `tool/scenario` contains it (e.g. `mtr/`)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../fixtures
topo=$here/netns-topology.sh
filter=${1:-}

# capture TOOL SCENARIO WHERE ARGS...   WHERE is 'host' (root namespace, loopback only) or 'client'
capture() {
  tool=$1 scenario=$2 where=$3
  shift 3
  case "$tool/$scenario" in *"$filter"*) ;; *)
    note=
    return 0
    ;;
  esac
  out=$fixtures/$tool/$scenario
  set +e
  if [ "$where" = host ]; then
    "$@" >"$out.txt" 2>"$out.stderr.txt"
  else
    "$topo" exec "$@" >"$out.txt" 2>"$out.stderr.txt"
  fi
  code=$?
  set -e
  [ -s "$out.stderr.txt" ] || rm -f "$out.stderr.txt"
  {
    if [ "$where" = host ]; then echo "# root namespace"; else echo "# inside ni-client (test/support/netns-topology.sh exec ...)"; fi
    if [ -n "${note:-}" ]; then echo "# $note"; fi
    echo "$*"
    echo "# exit code $code"
  } >"$out.cmd"
  note=
  echo "captured $tool/$scenario (exit $code)"
}

cleanup() {
  [ -n "${dns_pid:-}" ] && kill "$dns_pid" 2>/dev/null || true
  "$topo" dns-fail off
  "$topo" down
}
trap cleanup EXIT
"$topo" up

# ---- ping: the argument shape buildPingArgs produces: -n -O -c N -i I -W T -w D -4|-6 ADDRESS ----
capture ping ipv4-replies host ping -n -O -c 3 -i 1 -W 1 -w 3 -4 127.0.0.1
capture ping ipv6-replies host ping -n -O -c 3 -i 1 -W 1 -w 3 -6 ::1
capture ping ipv4-timeouts client ping -n -O -c 3 -i 1 -W 1 -w 3 -4 203.0.113.200
capture ping ipv6-timeouts client ping -n -O -c 3 -i 1 -W 1 -w 3 -6 2001:db8:3::200
capture ping ipv4-routed-replies client ping -n -O -c 2 -i 1 -W 1 -w 2 -4 203.0.113.2
capture ping ipv4-host-unreachable client ping -n -O -c 3 -i 1 -W 1 -w 3 -4 203.0.113.201
capture ping ipv4-net-unreachable client ping -n -O -c 3 -i 1 -W 1 -w 3 -4 198.18.0.1
capture ping ipv4-packet-filtered client ping -n -O -c 3 -i 1 -W 1 -w 3 -4 203.0.113.202
capture ping ipv6-no-route client ping -n -O -c 3 -i 1 -W 1 -w 3 -6 2001:db8:3::201
capture ping ipv6-admin-prohibited client ping -n -O -c 3 -i 1 -W 1 -w 3 -6 2001:db8:3::202
# Without -w ping does not stop at the first ICMP error, so every packet gets its line.
capture ping ipv4-host-unreachable-no-deadline client ping -n -O -c 3 -i 1 -W 1 -4 203.0.113.201
note="-t 2: not something buildPingArgs emits; captured for the 'Time to live exceeded' line"
capture ping ipv4-ttl-exceeded client ping -n -O -c 2 -i 1 -W 1 -w 2 -t 2 -4 203.0.113.2
capture ping ipv4-duplicates client ping -n -O -c 3 -i 1 -W 1 -w 3 -4 192.0.2.140
note="-b: broadcast; ping prints no (DUP!) marker for broadcast duplicates, the seq just repeats"
capture ping ipv4-broadcast client ping -n -O -b -c 3 -i 1 -W 1 -w 3 -4 192.0.2.255
case ipv4-mixed in *"$filter"*)
  # Replies, then timeouts while ni-r1 blackholes the target, then replies again.
  (sleep 1.5 && "$topo" blackhole on && sleep 2 && "$topo" blackhole off) &
  flipper=$!
  note="netns-topology.sh blackhole on at ~1.5 s, off at ~3.5 s"
  capture ping ipv4-mixed client ping -n -O -c 6 -i 1 -W 1 -w 6 -4 203.0.113.2
  wait "$flipper"
  ;;
esac
"$topo" dns-fail on
capture ping name-error-temporary client ping -n -O -c 1 -W 1 -w 1 no-such-host.invalid
capture traceroute name-error-temporary client traceroute -n -q 1 -w 1 -m 30 no-such-host.invalid
"$topo" exec node "$here/netns-nxdomain-dns.ts" >/dev/null &
dns_pid=$!
sleep 1.5
capture ping name-error-not-known client ping -n -O -c 1 -W 1 -w 1 no-such-host.invalid
capture traceroute name-error-not-known client traceroute -n -q 1 -w 1 -m 30 no-such-host.invalid
kill "$dns_pid"
dns_pid=
"$topo" dns-fail off

# ---- traceroute: the shape buildTracerouteArgs produces: -n -q Q -w W -m M -4|-6 ADDRESS ----
capture traceroute ipv4-loopback host traceroute -n -q 1 -w 1 -m 30 -4 127.0.0.1
capture traceroute ipv6-loopback host traceroute -n -q 1 -w 1 -m 30 -6 ::1
capture traceroute ipv4-three-hops client traceroute -n -q 1 -w 1 -m 30 -4 203.0.113.2
capture traceroute ipv6-three-hops client traceroute -n -q 1 -w 1 -m 30 -6 2001:db8:3::2
capture traceroute ipv4-three-hops-q3 client traceroute -n -q 3 -w 1 -m 30 -4 203.0.113.2
"$topo" silent-hop on
capture traceroute ipv4-silent-hop client traceroute -n -q 1 -w 1 -m 30 -4 203.0.113.2
capture traceroute ipv6-silent-hop client traceroute -n -q 1 -w 1 -m 30 -6 2001:db8:3::2
capture traceroute ipv4-silent-hop-q3 client traceroute -n -q 3 -w 1 -m 30 -4 203.0.113.2
"$topo" silent-hop off
capture traceroute ipv4-not-reached client traceroute -n -q 1 -w 1 -m 5 -4 203.0.113.200
capture traceroute ipv6-not-reached client traceroute -n -q 1 -w 1 -m 5 -6 2001:db8:3::200
# ni-r1 answers unroutable IPv4 packets through the kernel's ip_error(), which allows a burst of 5
# ICMP errors per peer and then 1 per second (net.ipv4.route.error_burst / error_cost: global
# sysctls a namespace cannot change). Traceroute sends 16 probes at once, so one run drains the
# budget: each clean capture waits for a refill first, and each "-rate-limited" capture runs right
# after a drained budget - real output with silent hops before the annotated one.
sleep 6
capture traceroute ipv4-host-unreachable client traceroute -n -q 1 -w 1 -m 30 -4 203.0.113.201
note="run right after ipv4-host-unreachable drained ni-r1's ICMP error budget"
capture traceroute ipv4-host-unreachable-q3-rate-limited client traceroute -n -q 3 -w 1 -m 30 -4 203.0.113.201
sleep 6
capture traceroute ipv4-host-unreachable-q3 client traceroute -n -q 3 -w 1 -m 30 -4 203.0.113.201
sleep 6
capture traceroute ipv4-prohibited client traceroute -n -q 1 -w 1 -m 30 -4 203.0.113.202
note="run right after ipv4-prohibited drained ni-r1's ICMP error budget"
capture traceroute ipv4-prohibited-rate-limited client traceroute -n -q 1 -w 1 -m 30 -4 203.0.113.202
capture traceroute ipv4-net-unreachable client traceroute -n -q 1 -w 1 -m 30 -4 198.18.0.1
capture traceroute ipv6-no-route client traceroute -n -q 1 -w 1 -m 30 -6 2001:db8:3::201
capture traceroute ipv6-prohibited client traceroute -n -q 1 -w 1 -m 30 -6 2001:db8:3::202
capture traceroute ipv6-net-unreachable client traceroute -n -q 1 -w 1 -m 30 -6 2001:db8:ff::1
note="-w 5: ni-r2 answers host unreachable only after ARP gives up (~3 s)"
capture traceroute ipv4-arp-failed client traceroute -n -q 1 -w 5 -m 30 -4 203.0.113.3
note="-w 5: ni-r2 answers address unreachable only after NDP gives up (~3 s)"
capture traceroute ipv6-ndp-failed client traceroute -n -q 1 -w 5 -m 30 -6 2001:db8:3::3

# ---- mtr (mtr-tiny 0.95): the shape buildMtrArgs produces: --raw -n -c COUNT -G 2 -m 30 -4|-6 ADDRESS ----
capture mtr ipv4-loopback host mtr --raw -n -c 3 -G 2 -m 30 -4 127.0.0.1
capture mtr ipv4-three-hops client mtr --raw -n -c 3 -G 2 -m 30 -4 203.0.113.2
capture mtr ipv6-three-hops client mtr --raw -n -c 3 -G 2 -m 30 -6 2001:db8:3::2
"$topo" silent-hop on
note="netns-topology.sh silent-hop on: ni-r2 (hop 2) sends no ICMP of its own"
capture mtr ipv4-silent-hop client mtr --raw -n -c 3 -G 2 -m 30 -4 203.0.113.2
"$topo" silent-hop off
case mtr/ipv4-packet-loss in *"$filter"*)
  # Packet loss: ni-r1 blackholes the target for about 2 s mid-run, so hops 2 and 3 (both reached
  # through that route) lose the probes of those rounds. (tc netem and iptables are not available
  # on every test machine; a route flip is.)
  (sleep 1.5 && "$topo" blackhole on && sleep 2 && "$topo" blackhole off) &
  flipper=$!
  note="netns-topology.sh blackhole on at ~1.5 s, off at ~3.5 s"
  capture mtr ipv4-packet-loss client mtr --raw -n -c 6 -G 2 -m 30 -4 203.0.113.2
  wait "$flipper"
  ;;
esac
capture mtr ipv4-not-reached client mtr --raw -n -c 2 -G 2 -m 30 -4 203.0.113.200
sleep 6
capture mtr ipv4-prohibited client mtr --raw -n -c 2 -G 2 -m 30 -4 203.0.113.202
note="-4 with an IPv6 address: not something buildMtrArgs emits; captured for mtr's complaint on stderr"
capture mtr family-mismatch host mtr --raw -n -c 1 -G 2 -m 30 -4 ::1

# ---- traceroute's other methods: -I (ICMP echo) and -T -p PORT (TCP SYN), as buildTracerouteArgs puts them first ----
capture traceroute ipv4-three-hops-icmp client traceroute -I -n -q 1 -w 1 -m 30 -4 203.0.113.2
capture traceroute ipv6-three-hops-icmp client traceroute -I -n -q 1 -w 1 -m 30 -6 2001:db8:3::2
note="nothing listens on the target's port 80: its RST ends the trace"
capture traceroute ipv4-three-hops-tcp client traceroute -T -p 80 -n -q 1 -w 1 -m 30 -4 203.0.113.2
note="run as nobody (setpriv --reuid=65534 --regid=65534 --clear-groups): -T needs raw sockets"
capture traceroute tcp-unprivileged host setpriv --reuid=65534 --regid=65534 --clear-groups traceroute -T -p 80 -n -q 1 -w 1 -m 30 -4 127.0.0.1
