package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agenttrust/service/bench/floor"
)

// serveFloor is the floor subcommand: the bare pgx + encoding/json handler
// of package bench/floor on its own port, in its own process, until SIGINT.
func serveFloor(args []string) error {
	fs := flag.NewFlagSet("floor", flag.ExitOnError)
	dbURL := fs.String("db", "", "database URL")
	orgID := fs.String("org", "", "organization whose agents the page lists")
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	_ = fs.Parse(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// 32 connections, as bench/read's floor: the service's two pools hold 32 together.
	pool, err := pgxpool.New(ctx, *dbURL+"&pool_max_conns=32")
	if err != nil {
		return err
	}
	defer pool.Close()
	mux := http.NewServeMux()
	mux.Handle("/graphql", floor.Handler(pool, *orgID))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
