#!/bin/sh
# A closed test network built from Linux network namespaces, for ping/traceroute captures and for
# integration tests that run the service inside ni-client. Nothing here touches the root namespace's
# interfaces or routes: every veth is created directly inside its namespaces, so no traffic can reach
# the host's uplink whatever address is pinged from ni-client.
#
#   ni-client --- ni-r1 --- ni-r2 --- ni-target
#        \
#         nibr0 (bridge in ni-client) --- ni-lan-a, ni-lan-b   (two hosts that answer broadcast pings)
#
#   link              IPv4                         IPv6
#   client - r1       192.0.2.2/25 - .1            2001:db8:1::2/64 - ::1
#   r1 - r2           198.51.100.1/24 - .2         2001:db8:2::1/64 - ::2
#   r2 - target       203.0.113.1/24 - .2          2001:db8:3::1/64 - ::2
#   client LAN        192.0.2.129/25 (bridge), lan-a .130, lan-b .131   (broadcast 192.0.2.255)
#
# Special destinations (all reached from ni-client through its default route):
#   203.0.113.2    / 2001:db8:3::2    the target: 3 hops, reached
#   203.0.113.200  / 2001:db8:3::200  blackholed in ni-r2 (silently dropped): ping timeouts, traceroute '*'
#   203.0.113.201  / 2001:db8:3::201  'unreachable' route in ni-r1: ICMP host unreachable (!H; IPv6: !N)
#   203.0.113.202  / 2001:db8:3::202  'prohibit' route in ni-r1: ICMP administratively prohibited (!X)
#   198.18.0.1     / 2001:db8:ff::1   no route in ni-r2 (r1 defaults to r2): ICMP net unreachable (!N)
#   203.0.113.3    / 2001:db8:3::3    on r2's target link but nobody has it: host unreachable after
#                                     ARP/NDP gives up (~3 s), from ni-r2
#   192.0.2.140                       held by both ni-lan-a and ni-lan-b behind the same MAC on a bridge
#                                     that floods every frame (ageing 0): each echo is answered twice (DUP!)
#   192.0.2.255                       the LAN broadcast; both LAN hosts answer (ping -b)
#
# Usage (as root):
#   netns-topology.sh up                  tear down leftovers, then build everything
#   netns-topology.sh down                remove every namespace and file this script creates
#   netns-topology.sh exec CMD [ARGS...]  run CMD inside ni-client (the service runs there in tests)
#   netns-topology.sh blackhole on|off    drop 203.0.113.2 / 2001:db8:3::2 in ni-r1 (flip it during a ping
#                                         to get a mix of replies and timeouts)
#   netns-topology.sh silent-hop on|off   ni-r2 stops sending its own ICMP to the client (hop 2 prints '*')
#                                         while still forwarding everything else
#   netns-topology.sh dns-fail on|off     make name lookups inside ni-client fail locally
#                                         (/etc/netns/ni-client/resolv.conf -> 127.0.0.1, where nothing listens)
#   netns-topology.sh status              list the namespaces and ni-client's addresses and routes
set -eu

# NI_NETNS_PREFIX renames every namespace (default `ni-`, the names above): test files that run at
# the same time each build their own copy of this network under their own prefix, so one file's `up`
# or `down` never tears down another's. Keep it short and plain ([a-z0-9-]).
P=${NI_NETNS_PREFIX:-ni-}
case "$P" in *[!a-z0-9-]* | '') echo "NI_NETNS_PREFIX must be [a-z0-9-]+, got '$P'" >&2 && exit 2 ;; esac

NAMESPACES="${P}client ${P}r1 ${P}r2 ${P}target ${P}lan-a ${P}lan-b"

in_ns() {
  ns=$1
  shift
  ip netns exec "$ns" "$@"
}

down() {
  for ns in $NAMESPACES; do
    if [ -e "/run/netns/$ns" ]; then
      ip netns del "$ns"
    fi
  done
  rm -f /etc/netns/${P}client/resolv.conf
  rmdir /etc/netns/${P}client 2>/dev/null || true
  rmdir /etc/netns 2>/dev/null || true
}

# link NS_A IF_A NS_B IF_B: a veth pair created inside NS_A with its peer moved straight into NS_B.
link() {
  ip -n "$1" link add "$2" type veth peer name "$4" netns "$3"
  ip -n "$1" link set "$2" up
  ip -n "$3" link set "$4" up
}

addr() {
  ip -n "$1" addr add "$3" dev "$2"
}

addr6() {
  # nodad: the address is usable at once instead of after duplicate-address detection (~1 s).
  ip -n "$1" -6 addr add "$3" dev "$2" nodad
}

up() {
  down
  for ns in $NAMESPACES; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    # Deterministic captures: the kernel's ICMP rate limits would turn fast traceroute hops into '*'.
    in_ns "$ns" sysctl -qw net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0
  done
  for ns in ${P}r1 ${P}r2; do
    in_ns "$ns" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
  done

  link ${P}client nic0 ${P}r1 nir1a
  addr ${P}client nic0 192.0.2.2/25
  addr6 ${P}client nic0 2001:db8:1::2/64
  addr ${P}r1 nir1a 192.0.2.1/25
  addr6 ${P}r1 nir1a 2001:db8:1::1/64

  link ${P}r1 nir1b ${P}r2 nir2a
  addr ${P}r1 nir1b 198.51.100.1/24
  addr6 ${P}r1 nir1b 2001:db8:2::1/64
  addr ${P}r2 nir2a 198.51.100.2/24
  addr6 ${P}r2 nir2a 2001:db8:2::2/64

  link ${P}r2 nir2b ${P}target nit0
  addr ${P}r2 nir2b 203.0.113.1/24
  addr6 ${P}r2 nir2b 2001:db8:3::1/64
  addr ${P}target nit0 203.0.113.2/24
  addr6 ${P}target nit0 2001:db8:3::2/64

  ip -n ${P}client route add default via 192.0.2.1
  ip -n ${P}client -6 route add default via 2001:db8:1::1
  ip -n ${P}r1 route add default via 198.51.100.2
  ip -n ${P}r1 -6 route add default via 2001:db8:2::2
  ip -n ${P}r2 route add 192.0.2.0/24 via 198.51.100.1
  ip -n ${P}r2 -6 route add 2001:db8:1::/64 via 2001:db8:2::1
  ip -n ${P}target route add default via 203.0.113.1
  ip -n ${P}target -6 route add default via 2001:db8:3::1

  ip -n ${P}r2 route add blackhole 203.0.113.200/32
  ip -n ${P}r2 -6 route add blackhole 2001:db8:3::200/128
  ip -n ${P}r1 route add unreachable 203.0.113.201/32
  ip -n ${P}r1 -6 route add unreachable 2001:db8:3::201/128
  ip -n ${P}r1 route add prohibit 203.0.113.202/32
  ip -n ${P}r1 -6 route add prohibit 2001:db8:3::202/128

  # The client LAN: a bridge in ni-client with two hosts that answer broadcast echo requests, so a
  # broadcast ping gets two replies per sequence number (the second is reported as DUP!).
  ip -n ${P}client link add nibr0 type bridge ageing_time 0
  ip -n ${P}client link set nibr0 up
  addr ${P}client nibr0 192.0.2.129/25
  for host in a b; do
    ns=${P}lan-$host
    ip -n ${P}client link add "nilan$host" type veth peer name nilan0 netns "$ns"
    ip -n ${P}client link set "nilan$host" master nibr0 up
    ip -n "$ns" link set nilan0 address 02:00:5e:00:53:01 up
    in_ns "$ns" sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=0
  done
  addr ${P}lan-a nilan0 192.0.2.130/25
  addr ${P}lan-b nilan0 192.0.2.131/25
  addr ${P}lan-a nilan0 192.0.2.140/25
  addr ${P}lan-b nilan0 192.0.2.140/25

  # Resolve every neighbour (ARP/NDP) now: probes sent while a neighbour is still unresolved are
  # dropped, which showed up as a traceroute over IPv6 with hops 2-17 silent on a fresh topology.
  for dst in 203.0.113.2 2001:db8:3::2 192.0.2.130 192.0.2.131; do
    in_ns ${P}client ping -n -q -c 2 -i 0.2 -W 2 "$dst" >/dev/null 2>&1 || true
  done
}

blackhole() {
  case "$1" in
  on)
    ip -n ${P}r1 route replace blackhole 203.0.113.2/32
    ip -n ${P}r1 -6 route replace blackhole 2001:db8:3::2/128
    ;;
  off)
    ip -n ${P}r1 route del blackhole 203.0.113.2/32 2>/dev/null || true
    ip -n ${P}r1 -6 route del blackhole 2001:db8:3::2/128 2>/dev/null || true
    ;;
  *) usage ;;
  esac
}

silent_hop() {
  # 'iif lo' selects packets ni-r2 generates itself (time exceeded, its own echo replies); packets it
  # forwards arrive on another interface and are untouched.
  case "$1" in
  on)
    ip -n ${P}r2 rule add iif lo to 192.0.2.0/24 ipproto icmp blackhole
    ip -n ${P}r2 -6 rule add iif lo to 2001:db8:1::/64 ipproto ipv6-icmp blackhole
    ;;
  off)
    ip -n ${P}r2 rule del iif lo to 192.0.2.0/24 ipproto icmp blackhole 2>/dev/null || true
    ip -n ${P}r2 -6 rule del iif lo to 2001:db8:1::/64 ipproto ipv6-icmp blackhole 2>/dev/null || true
    ;;
  *) usage ;;
  esac
}

dns_fail() {
  case "$1" in
  on)
    mkdir -p /etc/netns/${P}client
    echo 'nameserver 127.0.0.1' >/etc/netns/${P}client/resolv.conf
    ;;
  off)
    rm -f /etc/netns/${P}client/resolv.conf
    rmdir /etc/netns/${P}client 2>/dev/null || true
    rmdir /etc/netns 2>/dev/null || true
    ;;
  *) usage ;;
  esac
}

status() {
  ip netns list
  ip -n ${P}client -br addr
  ip -n ${P}client route
  ip -n ${P}client -6 route
}

usage() {
  echo "usage: $0 up | down | exec CMD [ARGS...] | blackhole on|off | silent-hop on|off | dns-fail on|off | status" >&2
  exit 2
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case "$cmd" in
up) up ;;
down) down ;;
exec)
  [ $# -ge 1 ] || usage
  exec ip netns exec ${P}client "$@"
  ;;
blackhole)
  [ $# -eq 1 ] || usage
  blackhole "$1"
  ;;
silent-hop)
  [ $# -eq 1 ] || usage
  silent_hop "$1"
  ;;
dns-fail)
  [ $# -eq 1 ] || usage
  dns_fail "$1"
  ;;
status) status ;;
*) usage ;;
esac
