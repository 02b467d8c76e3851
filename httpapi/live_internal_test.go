package httpapi

import "testing"

// A shutdown close that comes while a subscription's complete is being
// written waits for that write: its frame must not overtake the complete.
func TestCloseWaitsForACompleteBeingWritten(t *testing.T) {
	t.Parallel()
	lc := &liveConn{transport: "websocket", ws: &wsConn{}, cancel: func() {}}
	lc.opStarted()
	write, after := lc.completing() // the complete is on its way to the wire
	if !write || after != nil {
		t.Fatalf("completing: write %v, close after %v", write, after)
	}
	lc.closeWhenIdle(closeNormal, "server shutting down") // shutdown, before the write ends
	if lc.closed || lc.pending == nil {
		t.Fatalf("closed before the complete was written (closed %v, pending %v)", lc.closed, lc.pending)
	}
	if p := lc.wroteComplete(); p == nil || p.code != closeNormal || !lc.closed {
		t.Fatalf("after the complete: close %v, closed %v", p, lc.closed)
	}
}
