package db

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/agenttrust/service/auth"
)

// bulkhead keeps the requests of one organization from holding more than
// its share of the pool's connections in this process: a statement or
// transaction run for a request takes one of its organization's slots
// before it takes a connection and gives it back with the connection. An
// organization whose slots are all held waits for its own, so a slow
// statement of one organization queues that organization's requests and
// never the others'. Work that is no request's (River's, the listener's,
// start-up's) carries no principal and takes no slot.
type bulkhead struct {
	share atomic.Int64 // slots per organization; 0 until SetConnsPerOrg, then the pool's default share
	mu    sync.Mutex
	orgs  map[string]*orgSlots
}

// orgSlots is one organization's slots and how many statements hold or
// wait for one, so that an organization with none is forgotten.
type orgSlots struct {
	slots chan struct{}
	users int
}

// DefaultConnsPerOrg is DATABASE_CONNS_PER_ORG's default for a pool of
// maxConns connections: a quarter of them, at least one.
func DefaultConnsPerOrg(maxConns int) int { return max(maxConns/4, 1) }

// SetConnsPerOrg sets DATABASE_CONNS_PER_ORG: at most n (at least 1) of the
// pool's connections are held for one organization's requests at once in
// this process. Call it before serving; unset, the share is
// DefaultConnsPerOrg of the pool's size.
func (d *DB) SetConnsPerOrg(n int) { d.bulkhead.share.Store(int64(max(n, 1))) }

// enter takes a slot of the organization ctx's request acts for, waiting
// while all its slots are held; leave gives it back (once, however often
// it is called). A context without a principal takes none. The error is
// ctx's when it ends first.
func (d *DB) enter(ctx context.Context) (leave func(), err error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return func() {}, nil
	}
	b := &d.bulkhead
	b.mu.Lock()
	o := b.orgs[p.OrgID]
	if o == nil {
		share := int(b.share.Load())
		if share == 0 {
			share = DefaultConnsPerOrg(int(d.pool.Config().MaxConns))
		}
		if b.orgs == nil {
			b.orgs = make(map[string]*orgSlots)
		}
		o = &orgSlots{slots: make(chan struct{}, share)}
		b.orgs[p.OrgID] = o
	}
	o.users++
	b.mu.Unlock()
	done := func() {
		b.mu.Lock()
		if o.users--; o.users == 0 {
			delete(b.orgs, p.OrgID)
		}
		b.mu.Unlock()
	}
	select {
	case o.slots <- struct{}{}:
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-o.slots
			done()
		})
	}, nil
}
