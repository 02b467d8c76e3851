// Package hostile holds the hostile request table: hundreds of abusive
// GraphQL, websocket and HTTP requests sent to a real service process, each
// of which must be refused with the contract's error code while a snapshot
// of every table (row count and a checksum of its contents) stays unchanged.
// The package has no code of its own; its test is the table.
package hostile
