package live

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agenttrust/service/event"
)

// Metrics are the live-event gauges, counters and the commit-to-send
// latency histogram. A nil *Metrics observes nothing.
type Metrics struct {
	Connections   *prometheus.GaugeVec // by transport; the edge maintains it
	subscriptions *prometheus.GaugeVec
	delivers      *prometheus.CounterVec
	slows         prometheus.Counter
	catchUps      prometheus.Counter
	latency       *prometheus.HistogramVec
	reads         prometheus.Counter
	wakeups       prometheus.Counter
}

// NewMetrics registers the live-event metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Connections: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "att_live_connections", Help: "Open live-event connections by transport (websocket, sse).",
		}, []string{"transport"}),
		subscriptions: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "att_live_subscriptions", Help: "Open event subscriptions by transport.",
		}, []string{"transport"}),
		delivers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "att_live_events_delivered_total", Help: "Events handed to subscribers, by transport.",
		}, []string{"transport"}),
		slows: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "att_live_slow_consumer_closes_total", Help: "Subscriptions ended because the subscriber fell behind.",
		}),
		catchUps: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "att_live_catch_ups_total", Help: "Times a subscription fell Buffer events behind and caught up from the event log instead of being closed.",
		}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "att_live_commit_to_send_seconds",
			Help:    "From an event's creation in its transaction to its hand-off to the subscriber's connection.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"transport"}),
		reads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "att_live_log_reads_total", Help: "Statements the live hub ran to read the event log (all subscribers together).",
		}),
		wakeups: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "att_live_wakeups_total", Help: "Notifications (and listener reconnects) that woke the live hub.",
		}),
	}
	reg.MustRegister(m.Connections, m.subscriptions, m.delivers, m.slows, m.catchUps, m.latency, m.reads, m.wakeups)
	return m
}

func transportOf(ctx context.Context) string {
	if c := ConnFrom(ctx); c != nil {
		return c.Transport()
	}
	return "other"
}

func (m *Metrics) subscribed(ctx context.Context, d float64) {
	if m != nil {
		m.subscriptions.WithLabelValues(transportOf(ctx)).Add(d)
	}
}

func (m *Metrics) delivered(t string, ev *event.Event) {
	if m != nil {
		m.delivers.WithLabelValues(t).Inc()
		m.latency.WithLabelValues(t).Observe(time.Since(ev.CreatedAt).Seconds())
	}
}

func (m *Metrics) slow() {
	if m != nil {
		m.slows.Inc()
	}
}

func (m *Metrics) caughtUp() {
	if m != nil {
		m.catchUps.Inc()
	}
}

func (m *Metrics) read() {
	if m != nil {
		m.reads.Inc()
	}
}

func (m *Metrics) woke() {
	if m != nil {
		m.wakeups.Inc()
	}
}
