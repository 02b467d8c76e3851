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
	"strconv"
	"strings"
	"syscall"
	"time"
)

// target is one request to load a server with.
type target struct {
	url, key, script string
	body             []byte
	nodes            int // agents the answer must hold (0: just no errors)
}

// check sends the request once and fails unless the answer is a clean 200.
func (t target) check() error {
	req, _ := http.NewRequest(http.MethodPost, t.url, bytes.NewReader(t.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+t.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	var r struct {
		Data struct {
			Agents struct{ Nodes []json.RawMessage } `json:"agents"`
		} `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(out, &r); err != nil || resp.StatusCode != http.StatusOK || len(r.Errors) > 0 {
		return fmt.Errorf("HTTP %d (%v): %.400s", resp.StatusCode, err, out)
	}
	if t.nodes > 0 && len(r.Data.Agents.Nodes) != t.nodes {
		return fmt.Errorf("got %d agents, want %d: %.400s", len(r.Data.Agents.Nodes), t.nodes, out)
	}
	return nil
}

func (t target) writeScript(path string) (string, error) {
	script := fmt.Sprintf("wrk.method = \"POST\"\nwrk.body = %s\nwrk.headers[\"Content-Type\"] = \"application/json\"\nwrk.headers[\"Authorization\"] = \"Bearer %s\"\n",
		luaString(string(t.body)), t.key)
	return path, os.WriteFile(path, []byte(script), 0o600)
}

func luaString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

type result struct {
	requests            int
	rps, p50, p99, mean float64 // latencies in ms
	cpuPerReq           float64 // µs of this process's CPU per request
}

func (r result) print(name string, round int) {
	fmt.Printf("%-14s %5d %9.0f %9.2f %9.2f %12.0f\n", name, round, r.rps, r.p50, r.p99, r.cpuPerReq)
}

var (
	reqsRe  = regexp.MustCompile(`(\d+) requests in`)
	rpsRe   = regexp.MustCompile(`Requests/sec:\s+([\d.]+)`)
	meanRe  = regexp.MustCompile(`Latency\s+([\d.]+)(us|ms|s)\s`)
	pctRe   = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([\d.]+)(us|ms|s)`)
	errorRe = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)|Socket errors: .*`)
)

// load runs wrk against t and measures this process's CPU (both servers run
// in it, one at a time) over the run.
func load(o options, t target, connections int) (result, error) {
	before := processCPU()
	out, err := exec.Command(o.wrk, "-t"+strconv.Itoa(min(o.threads, connections)), "-c"+strconv.Itoa(connections),
		"-d"+strconv.Itoa(int(o.duration.Seconds()))+"s", "--timeout", "10s", "--latency", "-s", t.script, t.url).CombinedOutput()
	cpu := processCPU() - before
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
