#!/usr/bin/env bash
# Draws the demo's chart from its RESULT lines: segments per GRO packet and softirq time per wire segment (with its
# 95% interval), by scenario and engine, as a PNG (gnuplot, pngcairo or png terminal).
# usage: scripts/demo-chart.sh RESULTS.txt OUT.png
set -euo pipefail
die() { printf 'demo-chart.sh: error: %s\n' "$*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: scripts/demo-chart.sh RESULTS.txt OUT.png"
results=$1 png=$2
[ -f "$results" ] || die "no results file '$results'"
command -v gnuplot >/dev/null || die "gnuplot not installed (make setup installs gnuplot-nox)"
dat=${png%.png}.dat
# one row per scenario: kernel, offloads, engine segs/GRO, then their CPU ns per segment and CI half-widths
# ("-" where an engine did not run or the guest could not measure CPU time)
awk '
  /^RESULT / && / segs_per_gro=/ {
    delete f
    for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    s = f["scenario"]; e = f["engine"]
    if (!(s in seen)) { seen[s] = 1; order[++n] = s }
    spg[s, e] = f["segs_per_gro"]
    if (f["cpu_ns_per_seg"] + 0 >= 0) { cpu[s, e] = f["cpu_ns_per_seg"] / 1000; ci[s, e] = f["cpu_ci"] / 1000 }
    title = f["arch"] " " f["kernel"]
  }
  function v(a, k) { return (k in a) ? a[k] : "-" }
  END {
    if (!n) exit 1
    print "# " title
    for (i = 1; i <= n; i++) {
      s = order[i]
      printf "%s", s
      split("kernel offloads engine", es, " ")
      for (j = 1; j <= 3; j++) printf " %s", v(spg, s SUBSEP es[j])
      for (j = 1; j <= 3; j++) printf " %s %s", v(cpu, s SUBSEP es[j]), v(ci, s SUBSEP es[j])
      printf "\n"
    }
  }' "$results" >"$dat" || die "no RESULT lines with segs_per_gro in $results"
title=$(sed -n '1s/^# //p' "$dat")
# any CPU figure at all (column 5, 7 or 9 not "-")?
cpu=$(awk 'NR > 1 && ($5 != "-" || $7 != "-" || $9 != "-") { print "yes"; exit }' "$dat")
term="pngcairo size 1200,900 font 'sans,10'"
gnuplot -e "set terminal $term" -e 'quit' 2>/dev/null || term="png size 1200,900"
gnuplot <<GP
set terminal $term
set output '$png'
set datafile missing '-'
set termoption noenhanced
set multiplot layout 2,1 title 'tungro demo: kernel GRO vs tungro offloads vs tungro engine ($title)'
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set key top right
set grid ytics
set yrange [0:*]
set xtics rotate by -20 noenhanced
set ylabel 'segments per GRO packet'
set style histogram clustered gap 2
plot '$dat' using 2:xtic(1) title 'kernel', '' using 3 title 'offloads', '' using 4 title 'engine'
set style histogram errorbars gap 2 lw 1
set ylabel 'softirq us per wire segment (95% CI)'
$(if [ "$cpu" = yes ]; then
  echo "plot '$dat' using 5:6:xtic(1) title 'kernel', '' using 7:8 title 'offloads', '' using 9:10 title 'engine'"
else
  echo "set label 1 'CPU time per segment not measured in this run (see the table)' at graph 0.5,0.5 center"
  echo "unset key; unset xtics; unset ytics; set yrange [0:1]; plot 2 notitle"
fi)
unset multiplot
GP
[ -s "$png" ] || die "gnuplot wrote no $png"
echo "demo-chart.sh: $png" >&2
