#!/bin/sh
# Two mesh nodes in namespaces, each with its own way to one target host, so their traceroutes differ
# hop by hop. Nothing touches the root namespace's interfaces: every veth is made inside namespaces.
#
#   A  10.1.0.2 --- 10.1.0.1 RA 10.3.0.1 --------------------------- 10.3.0.2 \
#                                                                             T  203.0.113.10 (on lo)
#   B  10.2.0.2 --- 10.2.0.1 RB1 10.4.0.1 --- 10.4.0.2 RB2 10.5.0.1 -- 10.5.0.2 /
#
#   traceroute from A: 10.1.0.1, 203.0.113.10        from B: 10.2.0.1, 10.4.0.2, 203.0.113.10
#
# Usage (as root): mesh-netns.sh up PREFIX | down PREFIX
set -eu
P=${2:-mx-}
case "$P" in *[!a-z0-9-]* | '') echo "PREFIX must be [a-z0-9-]+, got '$P'" >&2 && exit 2 ;; esac
NAMESPACES="${P}a ${P}b ${P}ra ${P}rb1 ${P}rb2 ${P}t"

down() {
  for ns in $NAMESPACES; do
    if [ -e "/run/netns/$ns" ]; then ip netns del "$ns"; fi
  done
}

link() { # NS_A IF_A ADDR_A NS_B IF_B ADDR_B
  ip -n "$1" link add "$2" type veth peer name "$5" netns "$4"
  ip -n "$1" addr add "$3" dev "$2"
  ip -n "$4" addr add "$6" dev "$5"
  ip -n "$1" link set "$2" up
  ip -n "$4" link set "$5" up
}

up() {
  down
  for ns in $NAMESPACES; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
  done
  for router in ra rb1 rb2; do ip netns exec "${P}$router" sysctl -qw net.ipv4.ip_forward=1; done
  link "${P}a" eth0 10.1.0.2/24 "${P}ra" a0 10.1.0.1/24
  link "${P}ra" t0 10.3.0.1/24 "${P}t" ra0 10.3.0.2/24
  link "${P}b" eth0 10.2.0.2/24 "${P}rb1" b0 10.2.0.1/24
  link "${P}rb1" r0 10.4.0.1/24 "${P}rb2" r0 10.4.0.2/24
  link "${P}rb2" t0 10.5.0.1/24 "${P}t" rb0 10.5.0.2/24
  ip -n "${P}t" addr add 203.0.113.10/32 dev lo
  ip -n "${P}a" route add default via 10.1.0.1
  ip -n "${P}b" route add default via 10.2.0.1
  ip -n "${P}ra" route add 203.0.113.10/32 via 10.3.0.2
  ip -n "${P}rb1" route add default via 10.4.0.2
  ip -n "${P}rb2" route add 203.0.113.10/32 via 10.5.0.2
  ip -n "${P}rb2" route add 10.2.0.0/24 via 10.4.0.1
  ip -n "${P}t" route add 10.1.0.0/24 via 10.3.0.1
  ip -n "${P}t" route add 10.2.0.0/24 via 10.5.0.1
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down [PREFIX]" >&2 && exit 2 ;;
esac
