//go:build unix

package httpapi

import (
	"errors"
	"syscall"
)

const canAwaitReadable = true

// awaitReadable returns once the socket has a byte to read, has reached its
// end or failed, or its read deadline has passed (then with that error). It
// peeks, so gorilla's reader still sees every byte.
func awaitReadable(rc syscall.RawConn) error {
	var b [1]byte
	return rc.Read(func(fd uintptr) bool {
		for {
			_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			if !errors.Is(err, syscall.EINTR) {
				return !errors.Is(err, syscall.EAGAIN)
			}
		}
	})
}
