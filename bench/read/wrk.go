package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agenttrust/service/bench/dashboard"
)

// target is what wrk loads a server with: one body, or requests sent in
// turn (a mix).
type target struct {
	url, key, script string
	body             []byte               // a single request
	requests         []dashboard.Request  // sent in turn, each checked; nil: body
	cpu              func() time.Duration // the serving process's CPU so far; nil: this process's
}

// page is a target of one dashboard request.
func page(url, key string, r dashboard.Request) target {
	return target{url: url, key: key, requests: []dashboard.Request{r}}
}

// check sends each request once and fails unless the answer is a clean 200
// holding what the request asks for.
func (t target) check() error {
	if t.requests == nil {
		out, err := t.post(t.body)
		if err != nil {
			return err
		}
		var r struct {
			Errors []json.RawMessage `json:"errors"`
		}
		if err := json.Unmarshal(out, &r); err != nil || len(r.Errors) > 0 {
			return fmt.Errorf("%v: %.400s", err, out)
		}
		return nil
	}
	for _, r := range t.requests {
		out, err := t.post(r.Body)
		if err != nil {
			return err
		}
		if err := r.Check(out); err != nil {
			return err
		}
	}
	return nil
}

// post sends one body and returns the answer of a 200.
func (t target) post(body []byte) ([]byte, error) {
	req, _ := http.NewRequest(http.MethodPost, t.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("HTTP %d: %.400s", resp.StatusCode, out)
	}
	return out, err
}

// writeScript writes the wrk script: the body, or the requests in turn,
// each wrk thread starting at its own place in the turn.
func (t target) writeScript(path string) (string, error) {
	bodies := [][]byte{t.body}
	if t.requests != nil {
		bodies = bodies[:0]
		for _, r := range t.requests {
			bodies = append(bodies, r.Body)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = \"POST\"\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.headers[\"Authorization\"] = \"Bearer %s\"\n", t.key)
	b.WriteString("local bodies = {\n")
	for _, body := range bodies {
		b.WriteString("  " + luaString(string(body)) + ",\n")
	}
	b.WriteString(`}
local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end
local n = 0
function request()
  n = n + 1
  return wrk.format(nil, nil, nil, bodies[(n + id) % #bodies + 1])
end
`)
	return path, os.WriteFile(path, []byte(b.String()), 0o600)
}

func luaString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

type result struct {
	requests            int
	rps, p50, p99, mean float64 // latencies in ms
	cpuPerReq           float64 // µs of this process's CPU per request
	gcPer1k             float64 // collections per 1,000 requests
	heapGoal            float64 // MiB, the collector's heap goal at the end of the run
}

func (r result) print(name string, round int) {
	fmt.Printf("%-22s %5d %9.0f %9.2f %9.2f %12.0f %9.1f %9.1f\n", name, round, r.rps, r.p50, r.p99, r.cpuPerReq, r.gcPer1k, r.heapGoal)
}

var (
	reqsRe  = regexp.MustCompile(`(\d+) requests in`)
	rpsRe   = regexp.MustCompile(`Requests/sec:\s+([\d.]+)`)
	meanRe  = regexp.MustCompile(`Latency\s+([\d.]+)(us|ms|s)\s`)
	pctRe   = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([\d.]+)(us|ms|s)`)
	errorRe = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)|Socket errors: .*`)
)

// load runs wrk against t and measures the serving process's CPU over the
// run: this process's (the service, the stock reference and the floor run in
// it, one at a time), or t.cpu's.
func load(o options, t target, connections int) (result, error) {
	cpuClock := processCPU
	if t.cpu != nil {
		cpuClock = t.cpu
	}
	before, gcBefore := cpuClock(), gcCycles()
	out, err := exec.Command(o.wrk, "-t"+strconv.Itoa(min(o.threads, connections)), "-c"+strconv.Itoa(connections),
		"-d"+strconv.Itoa(int(o.duration.Seconds()))+"s", "--timeout", "10s", "--latency", "-s", t.script, t.url).CombinedOutput()
	cpu, gcs := cpuClock()-before, gcCycles()-gcBefore
	if err != nil {
		return result{}, fmt.Errorf("wrk: %v: %s", err, out)
	}
	if m := errorRe.Find(out); m != nil {
		return result{}, fmt.Errorf("wrk saw failures (%s):\n%s", m, out)
	}
	var r result
	m := reqsRe.FindSubmatch(out)
	if m == nil {
		return result{}, fmt.Errorf("cannot read wrk output:\n%s", out)
	}
	r.requests, _ = strconv.Atoi(string(m[1]))
	if m := rpsRe.FindSubmatch(out); m != nil {
		r.rps, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if m := meanRe.FindSubmatch(out); m != nil {
		r.mean = toMS(m[1], m[2])
	}
	for _, m := range pctRe.FindAllSubmatch(out, -1) {
		switch string(m[1]) {
		case "50":
			r.p50 = toMS(m[2], m[3])
		case "99":
			r.p99 = toMS(m[2], m[3])
		}
	}
	if r.requests > 0 {
		r.cpuPerReq = float64(cpu.Microseconds()) / float64(r.requests)
		r.gcPer1k = float64(gcs) * 1000 / float64(r.requests)
	}
	r.heapGoal = float64(readMetric("/gc/heap/goal:bytes")) / (1 << 20)
	if t.cpu != nil { // another process served: this one's collector says nothing of it
		r.gcPer1k, r.heapGoal = 0, 0
	}
	return r, nil
}

func toMS(v, unit []byte) float64 {
	f, _ := strconv.ParseFloat(string(v), 64)
	switch string(unit) {
	case "us":
		return f / 1000
	case "s":
		return f * 1000
	}
	return f
}

// gcCycles is how many collections this process has completed.
func gcCycles() uint64 { return readMetric("/gc/cycles/total:gc-cycles") }

func readMetric(name string) uint64 {
	m := []metrics.Sample{{Name: name}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// maxRSS is the most resident memory this process has had, in MiB.
func maxRSS() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Maxrss) / 1024
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func wrkVersion(bin string) string {
	out, _ := exec.Command(bin, "--version").CombinedOutput()
	line, _, _ := strings.Cut(string(out), "\n")
	if f := strings.Fields(line); len(f) >= 2 {
		return f[0] + " " + f[1]
	}
	return "wrk"
}
