package httpapi

import (
	"database/sql"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

type metrics struct {
	httpRequests *prometheus.CounterVec
	gqlRequests  *prometheus.CounterVec
	gqlLatency   *prometheus.HistogramVec
}

func newMetrics(reg *prometheus.Registry, stats func() sql.DBStats) *metrics {
	m := &metrics{
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "att_http_requests_total", Help: "HTTP requests by route and status code.",
		}, []string{"route", "code"}),
		gqlRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "att_graphql_requests_total",
			Help: "GraphQL operations by operation (type:first root field) and outcome (ok or error code).",
		}, []string{"operation", "outcome"}),
		gqlLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "att_graphql_request_duration_seconds", Help: "GraphQL operation latency.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"operation", "outcome"}),
	}
	reg.MustRegister(m.httpRequests, m.gqlRequests, m.gqlLatency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if stats != nil {
		gauge := func(name, help string, f func(s sql.DBStats) float64) {
			reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
				func() float64 { return f(stats()) }))
		}
		gauge("att_db_open_connections", "Open database connections.", func(s sql.DBStats) float64 { return float64(s.OpenConnections) })
		gauge("att_db_in_use_connections", "Database connections in use.", func(s sql.DBStats) float64 { return float64(s.InUse) })
		gauge("att_db_idle_connections", "Idle database connections.", func(s sql.DBStats) float64 { return float64(s.Idle) })
		gauge("att_db_max_open_connections", "Pool size limit.", func(s sql.DBStats) float64 { return float64(s.MaxOpenConnections) })
		gauge("att_db_wait_count", "Connections waited for, total.", func(s sql.DBStats) float64 { return float64(s.WaitCount) })
		gauge("att_db_wait_seconds", "Time spent waiting for connections, total.", func(s sql.DBStats) float64 { return s.WaitDuration.Seconds() })
	}
	return m
}

func (m *metrics) observeOperation(operation, outcome string, d time.Duration) {
	m.gqlRequests.WithLabelValues(operation, outcome).Inc()
	m.gqlLatency.WithLabelValues(operation, outcome).Observe(d.Seconds())
}
