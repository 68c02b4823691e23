#!/usr/bin/perl
# A stand-in for mtr for `npm run bench:streams mtr-lines`: writes `mtr --raw` lines for one hop
# (the address given) whose reply time (`p HOP USEC SEQ`) is the moment the line was written, in
# CLOCK_MONOTONIC microseconds, so the hop event's `last_ms` is that moment in ms and a reader
# subtracts it from its own clock (Node's process.hrtime reads the same clock) to get the line's
# latency through pipe, parser, stream and HTTP. Perl for the reason bench/fake-ping.pl gives.
# Arguments as buildMtrArgs makes them (only -c and the address are read); the gap between rounds
# is BENCH_LINE_INTERVAL_MS (default 50).
use strict;
use warnings;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC usleep);

$| = 1;    # every print is one write, as mtr's are
my ($count, $address) = (10, $ARGV[-1] // '127.0.0.1');
for my $i (0 .. $#ARGV - 1) { $count = $ARGV[$i + 1] if $ARGV[$i] eq '-c' }
my $interval = $ENV{BENCH_LINE_INTERVAL_MS} // 50;

for my $round (1 .. $count) {
  my $seq = 33000 + $round;
  print "x 0 $seq\n";
  print "h 0 $address\n" if $round == 1;
  usleep($interval * 1000);
  printf "p 0 %d %d\n", clock_gettime(CLOCK_MONOTONIC) * 1e6, $seq;
}
