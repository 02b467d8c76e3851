package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// row is one measured target: the service or a baseline.
type row struct {
	target              string
	conc                string
	ops                 float64 // per second
	unit                string  // what ops counts: req, tx, msg, delivery
	p50, p90, p99, p999 time.Duration
	errors, total       int64
	peakRSS             int64         // bytes; 0 when not measured
	cpuPerOp            time.Duration // server CPU per op; 0 when not measured
}

// group is one scenario: the service's row, its baseline's (if any), and
// what was checked along the way.
type group struct {
	scenario string
	service  row
	baseline *row
	notes    []string
	err      error // the scenario could not run: no row
	problem  error // a check failed: the row stands, the run fails
}

// measure runs pl against a server process and turns what it saw into a row:
// the client's count and latencies, the process's peak RSS and CPU per
// answered request over the run.
func measure(ctx context.Context, p *proc, pl plan, target string) (row, outcome) {
	p.resetPeak()
	cpu0 := p.cpu()
	out := pl.run(ctx)
	cpu := p.cpu() - cpu0
	r := row{target: target, conc: fmt.Sprint(pl.workers), ops: out.rps(), unit: "req",
		p50: out.pct(50), p90: out.pct(90), p99: out.pct(99), p999: out.pct(99.9),
		errors: out.errors, total: out.requests, peakRSS: p.peakRSS()}
	if ok := out.requests - out.errors; ok > 0 {
		r.cpuPerOp = cpu / time.Duration(ok)
	}
	return r, out
}

const tableHeader = "%-34s %-40s %5s %10s %8s %8s %8s %8s %9s %9s %9s\n"

// print writes the table: per scenario the service, the baseline and their
// ratios, then the notes.
func printTable(w io.Writer, groups []group) {
	fmt.Fprintf(w, tableHeader, "scenario", "target", "conc", "ops/s", "p50", "p90", "p99", "p99.9", "errors", "peak RSS", "CPU/op")
	fmt.Fprintln(w, strings.Repeat("-", 158))
	for _, g := range groups {
		if g.err != nil {
			fmt.Fprintf(w, "%-34s FAILED: %v\n", g.scenario, g.err)
			continue
		}
		printRow(w, g.scenario, g.service)
		if b := g.baseline; b != nil {
			printRow(w, "", *b)
			s := g.service
			fmt.Fprintf(w, "%-34s %-40s %5s %10s %8s %8s %8s %8s %9s %9s %9s\n", "", "  ratio service / baseline", "",
				ratio(s.ops, b.ops), ratio(ms(s.p50), ms(b.p50)), ratio(ms(s.p90), ms(b.p90)), ratio(ms(s.p99), ms(b.p99)),
				ratio(ms(s.p999), ms(b.p999)), "", ratio(float64(s.peakRSS), float64(b.peakRSS)),
				ratio(float64(s.cpuPerOp), float64(b.cpuPerOp)))
		}
		for _, n := range g.notes {
			fmt.Fprintf(w, "%-34s   %s\n", "", n)
		}
		if g.problem != nil {
			fmt.Fprintf(w, "%-34s   FAILED: %v\n", "", g.problem)
		}
	}
}

func printRow(w io.Writer, scenario string, r row) {
	fmt.Fprintf(w, tableHeader, scenario, r.target, r.conc, fmt.Sprintf("%.0f %s", r.ops, r.unit),
		dur(r.p50), dur(r.p90), dur(r.p99), dur(r.p999), fmt.Sprintf("%d/%d", r.errors, r.total), mibOrDash(r.peakRSS), usOrDash(r.cpuPerOp))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", ms(d))
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fms", ms(d))
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

func mibOrDash(b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

func usOrDash(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}
