// Package chaos holds the fault scenarios of `make chaos` (issue 15, item 3):
// the real server binary killed with SIGKILL under load and restarted, a
// private Postgres cluster stopped and started under load, webhook endpoints
// that hang, answer slowly or send a huge body, three server processes on one
// database, the daily budget under concurrent storms and a crash, a noisy
// neighbour (another organization's twelve hung endpoints), a weekly and a
// velocity limit with an approval threshold under an execute storm and a
// crash, a mandate's budget
// and uses under a storm over two processes and a crash, a noisy neighbour
// on the database (another organization's requests holding connections on a
// row lock and lookups), and live streams of every kind and webhook
// endpoints registered under load across several Postgres restarts (its
// short form only with -chaos.live). Each
// scenario is a test that checks the service's promises from the outside
// (the client library, the webhook receivers, the database's rows) and adds a
// line to a results table.
//
// `go test ./internal/chaos` runs the short form (CI); `make chaos` runs the
// long form (-chaos.long) and prints the table. See chaos_test.go.
package chaos
