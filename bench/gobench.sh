#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs every Go benchmark of the hot paths and of the models, one package
# after the other, and keeps the output in bench/out/gobench.txt (with the
# machine and its load average). Decode benchmarks report the fastest of
# many blocks as ns/op: on a shared machine compare those, not means.
#
#   bench/gobench.sh            # everything (~4 min)
#   BENCHTIME=1s bench/gobench.sh
set -eu
cd "$(dirname "$0")/.."
mkdir -p bench/out
out=bench/out/gobench.txt
t=${BENCHTIME:-200ms}
{
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -n) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) $(nproc) CPUs $(go env GOVERSION)"
	echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	# layers: per-format decode through a DecodingLayerParser and Parser,
	# gopacket's Ethernet/IPv4/UDP, our layer's cost next to IPv4's, ICRC.
	go test ./layers -run '^$' -bench 'Decode|Parser|Gopacket|NewPacket|Overhead|Layer$|ICRC' -benchtime "$t"
	# every decode path per format, filters, renderings, stats, models
	# without a benchmark of their own.
	go test ./bench -run '^$' -bench . -benchtime "$t"
	go test ./filter -run '^$' -bench . -benchtime "$t"
	# reading captures: pcapgo (the floor), the old reader, Next, ReadBatch.
	go test ./pcapio -run '^$' -bench . -benchtime 10x
	# the models' own benchmarks.
	go test ./bts ./bfc ./floodgate ./postcard -run '^$' -bench . -benchtime 1s
	# conformance replay (exact and device mode) of a 200k-frame load vector.
	go test ./conformance -run '^$' -bench . -benchtime 3x
	echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$out"
