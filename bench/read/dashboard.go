package main

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"time"

	"github.com/agenttrust/service/bench/dashboard"
)

// readTargets prepares the read targets, checking each once and writing
// its wrk script into dir, and returns them with the order a round runs
// them in: the floor, the stock reference's plain page, the service's
// pages (the trust page after the stock reference's), the mix, and with
// -each every request of the mix alone; PostGraphile's pages (pgl) before
// the service's when it runs; with -targets only those named. The
// latency targets ("typename c1", evaluateTrust) are run apart.
func readTargets(o options, svcURL, floorURL, stockURL, key string, f *dashboard.Fixture, pgl map[string]target, dir string) (map[string]target, []string, error) {
	pages := dashboard.Pages()
	targets := map[string]target{
		"floor":       page(floorURL, key, pages[0]),
		"stock plain": page(stockURL, key, pages[0]),
		"stock trust": page(stockURL, key, pages[2]),
		"mix":         {url: svcURL, key: key, requests: f.Mix()},
		"typename c1": {url: svcURL, key: key, body: body(`{ __typename }`, nil)},
		"evaluateTrust": {url: svcURL, key: key, body: body(evalQuery, map[string]any{"in": map[string]any{
			"agentId": f.Agents[0], "action": "purchase", "amount": "1.00", "currency": "USD"}})},
	}
	order := []string{"floor", "stock plain"}
	maps.Copy(targets, pgl)
	for _, p := range pages {
		if _, ok := pgl["postgraphile "+p.Name]; ok {
			order = append(order, "postgraphile "+p.Name)
		}
		if p.Name == "trust" {
			order = append(order, "stock trust")
		}
		targets[p.Name] = page(svcURL, key, p)
		order = append(order, p.Name)
	}
	order = append(order, "mix")
	for _, r := range f.Mix() {
		targets["mix: "+r.Name] = page(svcURL, key, r)
		if o.each {
			order = append(order, "mix: "+r.Name)
		}
	}
	if len(o.targets) > 0 {
		order = slices.DeleteFunc(order, func(name string) bool { return name != "floor" && !slices.Contains(o.targets, name) })
		for _, name := range o.targets {
			if _, ok := targets[name]; !ok {
				return nil, nil, fmt.Errorf("-targets: no target %q", name)
			}
			if !slices.Contains(order, name) {
				order = append(order, name)
			}
		}
	}
	i := 0
	for name, t := range targets {
		if err := t.check(); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		var err error
		if t.script, err = t.writeScript(filepath.Join(dir, fmt.Sprintf("target%d.lua", i))); err != nil {
			return nil, nil, err
		}
		targets[name] = t
		i++
	}
	return targets, order, nil
}

// runReads runs the read targets: a warm-up, rounds of the targets in
// order, the one-client latencies, and prints the ratios to the floor.
func runReads(o options, targets map[string]target, order []string) error {
	fmt.Printf("%-22s %5s %9s %9s %9s %12s %9s %9s\n", "target", "round", "req/s", "p50 ms", "p99 ms", "cpu µs/req", "GCs/1k", "goal MiB")
	results := map[string][]result{}
	warm := o
	warm.duration = 2 * time.Second
	for _, name := range order { // unreported warm-up
		if _, err := load(warm, targets[name], o.connections); err != nil {
			return err
		}
	}
	for r := 1; r <= o.rounds; r++ {
		for _, name := range order {
			res, err := load(o, targets[name], o.connections)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			results[name] = append(results[name], res)
			res.print(name, r)
		}
	}
	gc := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(gc)
	fmt.Printf("# after the rounds: GOGC=%d, GOMEMLIMIT=%s, live heap %.1f MiB, peak resident memory %.0f MiB\n",
		gc[0].Value.Uint64(), cmp.Or(os.Getenv("GOMEMLIMIT"), "unset"), float64(gc[1].Value.Uint64())/(1<<20), maxRSS())
	// Latency of one request at a time: evaluateTrust against { __typename }.
	for _, name := range []string{"typename c1", "evaluateTrust"} {
		lat := o
		lat.threads = 1
		res, err := load(lat, targets[name], 1)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		results[name] = append(results[name], res)
		res.print(name, 1)
	}

	if o.cpuprofile != "" && o.profile != "execute" {
		if err := profileRun(o, targets); err != nil {
			return err
		}
	}

	fmt.Println()
	fmt.Println("ratios (target / floor, same run; mean over rounds):")
	for _, name := range order[1:] {
		printRatio(name, results[name], results["floor"])
	}
	if results["stock plain"] != nil || results["stock trust"] != nil {
		fmt.Println("ratios (service / stock gqlgen, same page, same run; mean over rounds):")
		for _, name := range []string{"plain", "trust"} {
			if results[name] != nil && results["stock "+name] != nil {
				printRatio(name, results[name], results["stock "+name])
			}
		}
	}
	printPostGraphileRatios(results)
	tn, ev := results["typename c1"][0], results["evaluateTrust"][0]
	fmt.Printf("  evaluateTrust / { __typename } latency, one client: p50 %.2f×   mean %.2f×\n", ev.p50/tn.p50, ev.mean/tn.mean)
	return nil
}

// printRatio prints the means over rounds of the throughput, p99 and CPU
// per request of target rs to those of base in the same round.
func printRatio(name string, rs, base []result) {
	var thr, p99, cpu float64
	for i := range rs {
		s, f := rs[i], base[i]
		thr += s.rps / f.rps
		p99 += s.p99 / f.p99
		cpu += s.cpuPerReq / f.cpuPerReq
	}
	n := float64(len(rs))
	fmt.Printf("  %-20s throughput %.2f×   p99 %.2f×   cpu/req %.2f×\n", name, thr/n, p99/n, cpu/n)
}
