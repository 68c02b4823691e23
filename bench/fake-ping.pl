#!/usr/bin/perl
# A stand-in for ping for `npm run bench:streams lines`: writes iputils-shaped lines whose `time=`
# is the moment the line was written, in CLOCK_MONOTONIC milliseconds (Node's process.hrtime reads
# the same clock), so a reader subtracts it from its own clock to get the line's latency through
# pipe, parser, stream and HTTP. Perl, not Node: hundreds of these start at once, and a Node start
# costs ~50 ms of CPU each, which would measure the machine's load rather than the service.
# Arguments as buildPingArgs makes them (only -c and the address are read); the gap between lines
# is BENCH_LINE_INTERVAL_MS (default 50).
use strict;
use warnings;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC usleep);

$| = 1;    # every print is one write, as ping's are
my ($count, $address) = (4, $ARGV[-1] // '127.0.0.1');
for my $i (0 .. $#ARGV - 1) { $count = $ARGV[$i + 1] if $ARGV[$i] eq '-c' }
my $interval = $ENV{BENCH_LINE_INTERVAL_MS} // 50;

print "PING $address ($address) 56(84) bytes of data.\n";
for my $seq (1 .. $count) {
  usleep($interval * 1000);
  printf "64 bytes from %s: icmp_seq=%d ttl=64 time=%.3f ms\n", $address, $seq, clock_gettime(CLOCK_MONOTONIC) * 1000;
}
print "\n--- $address ping statistics ---\n";
printf "%d packets transmitted, %d received, 0%% packet loss, time %dms\n", $count, $count, $count * $interval;
