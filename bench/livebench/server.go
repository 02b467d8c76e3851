package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrust/service/bench/promtext"
	"github.com/agenttrust/service/keyring"
)

// server is the service under measurement, in its own process so that its
// memory is its own, with a loopback debug listener beside its API.
type server struct {
	cmd       *exec.Cmd
	bin       string
	addr      string
	base      string // http://addr
	debugAddr string
}

// startServer builds the service and starts it on dbURL. The pprof tag adds
// a loopback debug listener (pprof.go): profiles, and a forced GC before
// each memory reading.
func startServer(dbURL string, memRate int) (*server, error) {
	s := &server{bin: filepath.Join(os.TempDir(), "agenttrust-livebench")}
	build := exec.Command("go", "build", "-tags", "pprof", "-o", s.bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("build the service: %w", err)
	}
	var err error
	if s.addr, err = freeAddr(); err != nil {
		os.Remove(s.bin)
		return nil, err
	}
	if s.debugAddr, err = freeAddr(); err != nil {
		os.Remove(s.bin)
		return nil, err
	}
	s.cmd = exec.Command(s.bin)
	s.cmd.Env = append(os.Environ(), "PPROF_MEMPROFILERATE="+strconv.Itoa(memRate), "DATABASE_URL="+dbURL, "LISTEN_ADDR="+s.addr, "PPROF_ADDR="+s.debugAddr, "LOG_LEVEL=error",
		"ENCRYPTION_KEY="+keyring.Generate(), "RATE_LIMIT_RPS=1000000", "RATE_LIMIT_BURST=1000000")
	s.cmd.Stderr = os.Stderr
	if err := s.cmd.Start(); err != nil {
		os.Remove(s.bin)
		return nil, err
	}
	s.base = "http://" + s.addr
	if err := waitReady(s.base); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// close stops the server and removes its binary.
func (s *server) close() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	_ = s.cmd.Wait()
	os.Remove(s.bin)
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// warmUp runs one subscription and one mutation, so that one-time costs
// (parsed documents, pools) are not counted per subscription, then returns
// the server's settled resident memory and its metrics.
func (s *server) warmUp(key string) (int64, map[string]float64, error) {
	warm, err := subscribe(s.addr, key)
	if err != nil {
		return 0, nil, fmt.Errorf("subscribe: %w", err)
	}
	if _, err := mutate(s.base, key, 0); err != nil {
		return 0, nil, err
	}
	if _, _, err := warm.ReadMessage(); err != nil {
		return 0, nil, fmt.Errorf("warm-up subscription: %w", err)
	}
	warm.Close()
	if err := waitMetric(s.base, "att_live_subscriptions", 0, false); err != nil {
		return 0, nil, err
	}
	rssBefore, err := settledRSS(s.pid(), s.debugAddr)
	if err != nil {
		return 0, nil, err
	}
	m, err := promtext.Scrape(s.base)
	return rssBefore, m, err
}

func waitReady(base string) error {
	for range 300 {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the service never became ready")
}

// waitMetric waits for a metric to reach want (atLeast) or fall to it.
func waitMetric(base, name string, want float64, atLeast bool) error {
	for range 600 {
		m, err := promtext.Scrape(base)
		if err == nil && (atLeast && m[name] >= want || !atLeast && m[name] <= want) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s never reached %v", name, want)
}

// settledRSS collects the server's garbage, returns the freed memory to the
// OS and reads its resident set: memory that live state holds, not garbage
// the collector has yet to reach, whatever GOGC the service runs with.
func settledRSS(pid int, debugAddr string) (int64, error) {
	for range 5 { // each GC also halves the stacks that use under a quarter of theirs
		resp, err := http.Get("http://" + debugAddr + "/debug/freeosmemory")
		if err != nil {
			return 0, fmt.Errorf("force a GC: %w", err)
		}
		resp.Body.Close()
	}
	time.Sleep(500 * time.Millisecond)
	return rss(pid)
}

// saveProfiles writes the server's heap profile and goroutine dump.
func saveProfiles(debugAddr, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for file, path := range map[string]string{"heap.pprof": "heap?gc=1", "goroutines.txt": "goroutine?debug=1"} {
		resp, err := http.Get("http://" + debugAddr + "/debug/pprof/" + path)
		if err != nil {
			return err
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, file), raw, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// rss reads a process's resident set size in bytes.
func rss(pid int) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
