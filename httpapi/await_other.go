//go:build !unix

package httpapi

import "syscall"

const canAwaitReadable = false

func awaitReadable(syscall.RawConn) error { return nil }
