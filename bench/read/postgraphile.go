package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrust/service/bench/dashboard"
)

// postgraphileRole is the role PostGraphile connects as: it may read agents
// and trust_counters only, so PostGraphile (which exposes what its role may
// read) builds its schema from those two tables and their foreign key, and
// not from the rest of the service's tables.
const postgraphileRole = "bench_postgraphile"

// postgraphile is PostGraphile (bench/postgraphile, from its lock file)
// serving the scratch database in a Node process of its own.
type postgraphile struct {
	url    string
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has ended
}

// postGraphileTargets starts PostGraphile and returns its targets for the
// organization orgID's pages and how to stop it; none without its packages.
func postGraphileTargets(ctx context.Context, o options, dbURL, orgID string) (map[string]target, func(), error) {
	p, err := startPostGraphile(ctx, o.postgraphile, o.admin, dbURL)
	if err != nil || p == nil {
		return nil, func() {}, err
	}
	return p.targets(orgID), p.stop, nil
}

// startPostGraphile starts PostGraphile on dbURL's database and waits until
// it answers; without its npm packages it returns nil and says how to get
// them, since the other targets need no Node.
func startPostGraphile(ctx context.Context, dir, admin, dbURL string) (*postgraphile, error) {
	cli := filepath.Join(dir, "node_modules", "postgraphile", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		fmt.Printf("# PostGraphile not installed (%s): its targets are skipped; `cd %s && npm ci` installs it\n", cli, dir)
		return nil, nil
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(u.Path, "/")
	if err := grantPostGraphile(ctx, admin, dbURL, name); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	u.User = url.User(postgraphileRole)
	cmd := exec.CommandContext(ctx, "node", cli, "--connection", u.String(), "--schema", "public",
		"--no-ignore-rbac", "--disable-default-mutations", "--disable-query-log",
		"--host", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.Stderr = os.Stderr // its banner (stdout) is left out of the table
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start PostGraphile: %w", err)
	}
	p := &postgraphile{url: fmt.Sprintf("http://127.0.0.1:%d/graphql", port), cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	if err := p.wait(30 * time.Second); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// grantPostGraphile makes PostGraphile's role (once per Postgres server) and
// lets it read the two tables of the pages in the scratch database.
func grantPostGraphile(ctx context.Context, admin, dbURL, database string) error {
	create := `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '` + postgraphileRole + `') THEN CREATE ROLE ` + postgraphileRole + ` LOGIN; END IF; END $$`
	if err := execSimple(ctx, admin, create); err != nil {
		return fmt.Errorf("PostGraphile's role: %w", err)
	}
	for _, q := range []string{
		`GRANT CONNECT ON DATABASE "` + database + `" TO ` + postgraphileRole,
		`GRANT USAGE ON SCHEMA public TO ` + postgraphileRole,
		`GRANT SELECT ON agents, trust_counters TO ` + postgraphileRole,
	} {
		if err := execSimple(ctx, dbURL, q); err != nil {
			return fmt.Errorf("PostGraphile's grants: %w", err)
		}
	}
	return nil
}

// wait polls until PostGraphile answers a query or the process ends.
func (p *postgraphile) wait(limit time.Duration) error {
	t := target{url: p.url, body: dashboard.Body(`{ __typename }`, nil)}
	deadline := time.Now().Add(limit)
	for {
		_, err := t.post(t.body)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("PostGraphile did not answer: %w", err)
		}
		select {
		case <-p.exited:
			return fmt.Errorf("PostGraphile exited before it answered: %w", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// cpu is the Node process's CPU time so far (user and system, from
// /proc/PID/stat in clock ticks of 1/100 s).
func (p *postgraphile) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses: utime and
	// stime are the 12th and 13th of them.
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func (p *postgraphile) stop() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// targets are PostGraphile's plain and trust pages, measured by its CPU.
func (p *postgraphile) targets(orgID string) map[string]target {
	out := map[string]target{}
	for _, r := range dashboard.PostGraphilePages(orgID) {
		t := page(p.url, "", r)
		t.cpu = p.cpu
		out["postgraphile "+r.Name] = t
	}
	return out
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// printPostGraphileRatios prints the service's throughput and CPU per
// request against PostGraphile's on the same page in the same rounds.
func printPostGraphileRatios(results map[string][]result) {
	if results["postgraphile plain"] == nil && results["postgraphile trust"] == nil {
		return
	}
	fmt.Println("ratios (service / PostGraphile, same page, same run; mean over rounds; throughput above 1 is the service ahead, cpu/req below 1):")
	for _, name := range []string{"plain", "trust"} {
		if results[name] != nil && results["postgraphile "+name] != nil {
			printRatio(name, results[name], results["postgraphile "+name])
		}
	}
}
