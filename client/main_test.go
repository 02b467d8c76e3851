package client_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"testing"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/wire"
)

// TestMain starts one service for the examples, which read its URL and key
// from the environment as a user's program would.
func TestMain(m *testing.M) {
	stop, err := exampleServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "example server:", err)
		os.Exit(1)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}

func exampleServer() (stop func(), err error) {
	ctx := context.Background()
	admin := dbtest.OpenSQL(dbtest.AdminURL())
	defer admin.Close()
	name := "att_client_ex_" + id.Random(8)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return nil, err
	}
	drop := func() {
		a := dbtest.OpenSQL(dbtest.AdminURL())
		defer a.Close()
		_, _ = a.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}
	u, _ := url.Parse(dbtest.AdminURL())
	u.Path = "/" + name
	d, err := db.Open(ctx, u.String())
	if err != nil {
		drop()
		return nil, err
	}
	if _, err := d.Migrate(ctx); err != nil {
		d.Close()
		drop()
		return nil, err
	}
	_, _, key, err := db.NewOrgService(d).CreateOrg(ctx, "examples")
	if err != nil {
		d.Close()
		drop()
		return nil, err
	}
	srv := httptest.NewServer(wire.Handler(wire.Options{DB: d, Config: httpapi.Config{RateLimitRPS: 10000, RateLimitBurst: 10000}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	os.Setenv(client.APIKeyEnv, key)
	os.Setenv(client.BaseURLEnv, srv.URL)
	return func() {
		srv.Close()
		d.Close()
		drop()
	}, nil
}
