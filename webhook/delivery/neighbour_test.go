package delivery_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/webhook/delivery"
	"github.com/agenttrust/service/webhook/webhooktest"
)

// TestHungOrganizationDoesNotDelayAnother: twelve hung endpoints of one
// organization hold that organization's share of the workers and senders
// only, so another organization's deliveries arrive within a few seconds
// of their commit while every hung request is still hanging. Without a
// share per organization the hung endpoints (two requests each) would hold
// all 20 senders for the request timeout, 20 s.
func TestHungOrganizationDoesNotDelayAnother(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{Timeout: 20 * time.Second})
	hung, quiet := webhooktest.New(t), webhooktest.New(t)
	hung.Answer(func(q webhooktest.Request) webhooktest.Answer {
		if q.Message.Type != event.AgentRegistered {
			return webhooktest.Answer{Status: 204} // the registration's verification
		}
		return webhooktest.Answer{Status: 200, Delay: time.Minute}
	})
	const endpoints, perOrg = 12, 5
	for i := range endpoints {
		e.Register(fmt.Sprintf("%s/%d", hung.URL(), i), event.AgentRegistered)
	}
	other := e.NewKey()
	e.RegisterAs(other, quiet.URL(), event.AgentRegistered)
	r, stop := e.Start(delivery.Config{Workers: 20, PerEndpoint: 2, PerOrganization: perOrg, JobTimeout: 45 * time.Second})
	defer func() { r.Kill(); stop() }()

	// latency delivers n events of the other organization one after
	// another and returns the longest from a commit to its delivery.
	delivered := 0
	latency := func(n int) (worst time.Duration) {
		for range n {
			at := time.Now()
			e.RegisterAgentAs(other, fmt.Sprintf("quiet-%d", delivered))
			delivered++
			got := quiet.Wait(t, delivered, 10*time.Second, event.AgentRegistered)
			worst = max(worst, got[delivered-1].At.Sub(at))
		}
		return worst
	}
	alone := latency(5)
	for i := range 3 {
		e.RegisterAgent(fmt.Sprintf("noisy-%d", i)) // three events for each hung endpoint
	}
	hung.Wait(t, perOrg, wait, event.AgentRegistered)
	time.Sleep(500 * time.Millisecond) // time for more requests to start, were they allowed
	beside := latency(10)
	t.Logf("the other organization's longest commit to delivery: %s alone, %s beside %d hung endpoints", alone, beside, endpoints)
	if beside > 5*time.Second {
		t.Fatalf("beside a hung organization another's delivery took %s after its commit, want within 5 s", beside)
	}
	if got := len(hung.Requests(event.AgentRegistered)); got > perOrg {
		t.Fatalf("the hung organization holds %d requests in flight, want at most its share, %d", got, perOrg)
	}
}
