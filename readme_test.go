package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/keyring"
)

// asProgram, set in a process's environment, makes this test binary run as
// the program itself: the walk-through's `go run .` is this binary.
const asProgram = "AGENTTRUST_TEST_AS_PROGRAM"

func TestMain(m *testing.M) {
	if os.Getenv(asProgram) != "" {
		os.Unsetenv(asProgram)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The README's walk-through works literally: its shell blocks run in order,
// in one shell, against a fresh service (the program started as `go run .`
// is, on a free port and a fresh database), with the substitutions the
// README asks of a reader: the base URL, and each `export NAME=prefix_…`
// filled with the value the last command before it printed. A command that fails
// or an output whose shape differs from the README's fails the test.
func TestREADMEWalkthrough(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the README's walk-through needs %s: %v", tool, err)
		}
	}
	steps := walkthroughSteps(t, "README.md")
	if len(steps) < 20 {
		t.Fatalf("found %d steps in the README's walk-through: is the parser still right?", len(steps))
	}
	t.Logf("%d steps", len(steps))
	w := startWalk(t)
	for _, s := range steps {
		w.do(s)
		if t.Failed() {
			t.Fatalf("README.md:%d failed; the service logged:\n%s\nthe shell's stderr:\n%s", s.line, w.serverLog.String(), w.shellErr.String())
		}
	}
}

// step is one command of the walk-through with the output the README shows
// for it, or (watch > 0) what the README says another terminal shows.
type step struct {
	line     int    // in README.md
	command  string // shell text; "" for a watch
	terminal int    // > 0: runs in that terminal, beside the others
	watch    int    // > 0: want is what that terminal shows from here on
	want     []string
}

var (
	wantLine    = regexp.MustCompile(`^# → ?(.*)$`)
	wantMore    = regexp.MustCompile(`^#\s{3,}(.*)$`)
	watchLine   = regexp.MustCompile(`^# terminal (\d+) (?:then )?shows:$`)
	inTerminal  = regexp.MustCompile(`\s+#\s*in terminal (\d+)\b.*$`)
	pasteExport = regexp.MustCompile(`^export (\w+)=(\S*)…(\s+#.*)?$`)
	serveLine   = regexp.MustCompile(`^((?:\w+=\S+\s+)*)go run \.$`)
)

// walkthroughSteps reads the sh blocks of the file's "Walk-through" section.
func walkthroughSteps(t *testing.T, file string) []step {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var steps []step
	in, fenced, sh, wanting := false, false, false, false
	for i, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "## ") {
			in = l == "## Walk-through"
			continue
		}
		if !in {
			continue
		}
		if strings.HasPrefix(l, "```") {
			fenced, sh, wanting = !fenced, !fenced && l == "```sh", false
			continue
		}
		if !sh {
			continue
		}
		last := len(steps) - 1
		if last >= 0 && steps[last].command != "" && !complete(steps[last].command) {
			steps[last].command += "\n" + l
			continue
		}
		switch m, w, c := watchLine.FindStringSubmatch(l), wantLine.FindStringSubmatch(l), wantMore.FindStringSubmatch(l); {
		case m != nil:
			steps = append(steps, step{line: i + 1, watch: atoi(m[1])})
			wanting = false
		case w != nil:
			if last < 0 {
				t.Fatalf("README.md:%d: an output before any command", i+1)
			}
			steps[last].want = append(steps[last].want, w[1])
			wanting = true
		case c != nil && wanting:
			steps[last].want[len(steps[last].want)-1] += c[1]
		case strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "":
			wanting = false
		default:
			s := step{line: i + 1, command: l}
			if m := inTerminal.FindStringSubmatchIndex(l); m != nil {
				s.terminal, s.command = atoi(l[m[2]:m[3]]), l[:m[0]]
			}
			steps = append(steps, s)
			wanting = false
		}
	}
	return steps
}

// complete reports whether a command's text is whole: its single quotes
// closed and no line continued.
func complete(cmd string) bool {
	return strings.Count(cmd, "'")%2 == 0 && !strings.HasSuffix(cmd, `\`)
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// walk is the walk-through's machine: a service, a shell, other terminals.
type walk struct {
	t         *testing.T
	dir, addr string
	exe       string
	env       []string // the service's environment
	server    *exec.Cmd
	serverLog *syncBuffer
	shell     io.Writer
	shellOut  chan string
	shellErr  *syncBuffer
	output    string      // the last command's output
	seen      map[int]int // terminal → lines of its output already matched
}

// startWalk starts the service on a fresh database and the shell.
func startWalk(t *testing.T) *walk {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, dbURL := dbtest.NewWithURL(t)
	dir := t.TempDir()
	common := []string{"HOME=" + dir, "XDG_CONFIG_HOME=", "DATABASE_URL=" + dbURL, "ENCRYPTION_KEY=" + keyring.Generate(), "LOG_LEVEL=warn"}
	w := &walk{t: t, dir: dir, addr: freeAddr(t), exe: exe, serverLog: &syncBuffer{}, shellErr: &syncBuffer{}, seen: map[int]int{}}
	// A small pool: the walk-through is one user, and the shared test server's connections are few.
	w.env = append(append(os.Environ(), common...), asProgram+"=1", "LISTEN_ADDR="+w.addr, "DATABASE_MAX_CONNS=8")
	w.startService(nil)

	sh := exec.Command("bash", "--noprofile", "--norc")
	sh.Dir = dir
	sh.Env = append([]string{"PATH=" + os.Getenv("PATH"), "PROGRAM=" + exe}, common...)
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its background jobs die with it
	sh.Stderr = w.shellErr
	stdin, err := sh.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-sh.Process.Pid, syscall.SIGKILL)
		_ = sh.Wait()
	})
	w.shell, w.shellOut = stdin, make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			w.shellOut <- sc.Text()
		}
		close(w.shellOut)
	}()
	// `go run .` is the program under test; any other go command is go.
	w.run(0, `set -o pipefail
go() { if [ "$1" = run ] && [ "$2" = . ]; then shift 2; `+asProgram+`=1 "$PROGRAM" "$@"; else command go "$@"; fi; }`)
	return w
}

// getenv is a setting of the walk-through's environment (the last one wins,
// as in a process's environment).
func (w *walk) getenv(name string) string {
	v := ""
	for _, kv := range w.env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// startService (re)starts the service with extra settings, as terminal 1's
// `go run .` would, and waits until it is ready.
func (w *walk) startService(extra []string) {
	t := w.t
	if w.server != nil {
		_ = w.server.Process.Signal(syscall.SIGTERM)
		_ = w.server.Wait()
	}
	cmd := exec.Command(w.exe)
	cmd.Dir, cmd.Env = w.dir, append(append([]string{}, w.env...), extra...)
	cmd.Stdout, cmd.Stderr = w.serverLog, w.serverLog
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.server = cmd
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + w.addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the service never became ready: %v\n%s", err, w.serverLog.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// do runs one step and checks its output.
func (w *walk) do(s step) {
	t := w.t
	if s.watch > 0 {
		w.awaitTerminal(s)
		return
	}
	cmd := strings.ReplaceAll(strings.ReplaceAll(s.command, "http://localhost:8080", "http://"+w.addr), "localhost:8080", w.addr)
	if m := pasteExport.FindStringSubmatch(cmd); m != nil {
		value := pasteValue(w.output, m[2])
		if value == "" {
			t.Errorf("README.md:%d: the command before printed no %s… to paste:\n%s", s.line, m[2], w.output)
			return
		}
		// The output stays: exports in a row paste from the same command's.
		w.run(s.line, "export "+m[1]+"="+value)
		return
	}
	if m := serveLine.FindStringSubmatch(cmd); m != nil {
		w.startService(strings.Fields(os.Expand(m[1], w.getenv)))
		return
	}
	if s.terminal > 0 {
		log := filepath.Join(w.dir, fmt.Sprintf("terminal-%d.log", s.terminal))
		w.run(s.line, fmt.Sprintf("( %s ) > %s 2>&1 &", cmd, log))
		w.awaitOutput(s, log)
		return
	}
	w.output = w.run(s.line, cmd)
	if len(s.want) > 0 && !outputMatches(s.want, w.output) {
		t.Errorf("README.md:%d: %s\nprinted:\n%s\nthe README shows:\n%s", s.line, s.command, w.output, strings.Join(s.want, "\n"))
	}
}

// pasteValue is the first token of output starting with prefix that is
// not a JSON object's key (`org_id` in `"org_id": "org_…"` is not an id).
func pasteValue(output, prefix string) string {
	re := regexp.MustCompile(regexp.QuoteMeta(prefix) + `[^\s"',}\]]+("\s*:)?`)
	for _, m := range re.FindAllStringSubmatch(output, -1) {
		if m[1] == "" {
			return m[0]
		}
	}
	return ""
}

// run sends cmd to the shell and returns what it printed, failing the test
// when it exits non-zero or takes over a minute.
func (w *walk) run(line int, cmd string) string {
	t := w.t
	const marker = "@@walkthrough-step-exit"
	fmt.Fprintf(w.shell, "%s\nprintf '\\n%s %%d\\n' $?\n", cmd, marker)
	var out []string
	timeout := time.After(time.Minute)
	for {
		select {
		case l, ok := <-w.shellOut:
			if !ok {
				t.Fatalf("README.md:%d: the shell ended", line)
			}
			if code, found := strings.CutPrefix(l, marker+" "); found {
				if code != "0" {
					t.Errorf("README.md:%d: %s\nexited %s, printing:\n%s", line, cmd, code, strings.Join(out, "\n"))
				}
				return strings.TrimSpace(strings.Join(out, "\n"))
			}
			out = append(out, l)
		case <-timeout:
			t.Fatalf("README.md:%d: %s\nstill running after a minute", line, cmd)
		}
	}
}

// awaitOutput waits until a command started in another terminal has printed
// something (a subscription's stream opened, a receiver listening).
func (w *walk) awaitOutput(s step, log string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, _ := os.ReadFile(log); len(b) > 0 {
			return
		}
		if time.Now().After(deadline) {
			w.t.Errorf("README.md:%d: %s\nprinted nothing in 30 s", s.line, s.command)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// awaitTerminal waits until a terminal's output shows the step's lines, in
// order, after what earlier watches of it matched.
func (w *walk) awaitTerminal(s step) {
	log := filepath.Join(w.dir, fmt.Sprintf("terminal-%d.log", s.watch))
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(log)
		lines := strings.Split(string(b), "\n")
		at, matched := w.seen[s.watch], 0
		for ; at < len(lines) && matched < len(s.want); at++ {
			if lineMatches(s.want[matched], lines[at]) {
				matched++
			}
		}
		if matched == len(s.want) {
			w.seen[s.watch] = at
			return
		}
		if time.Now().After(deadline) {
			w.t.Errorf("README.md:%d: terminal %d never showed %q; it shows:\n%s", s.line, s.watch, s.want[matched], b)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
