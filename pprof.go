//go:build pprof

package main

import (
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
)

// Built only with -tags pprof (bench/livebench does; GOFLAGS=-tags=pprof
// go run ./bench/load builds the service it measures so): PPROF_ADDR serves
// net/http/pprof, including CPU profiles, and /debug/freeosmemory (a GC that also returns freed
// memory to the OS) on its own loopback listener, never on the service's.
func init() {
	addr := os.Getenv("PPROF_ADDR")
	if addr == "" {
		return
	}
	if r, err := strconv.Atoi(os.Getenv("PPROF_MEMPROFILERATE")); err == nil && r > 0 {
		runtime.MemProfileRate = r // 1 records every allocation: exact, and slow
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile) // CPU, which Index does not serve
	mux.HandleFunc("/debug/freeosmemory", func(w http.ResponseWriter, _ *http.Request) {
		debug.FreeOSMemory()
		w.WriteHeader(http.StatusNoContent)
	})
	go func() { _ = http.ListenAndServe(addr, mux) }() //nolint:gosec // loopback, benchmark builds only
}
