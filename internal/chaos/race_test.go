//go:build race

package chaos

// raceEnabled: the server binary is built with -race too, which reuses the
// test build's cache and checks the server for races under faults.
const raceEnabled = true
