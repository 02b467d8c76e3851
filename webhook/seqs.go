package webhook

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// A delivery job names its events by their sequence numbers in the log, in a
// compact text form: River stores, fetches, updates and returns a job's
// arguments at every step, and a list of event ids is many times the size
// of the compact form (past a few kilobytes Postgres stores it out of line,
// which each of those steps pays for). The form lists the numbers in
// ascending order as comma-separated items; each item is the distance from
// the previous number (from 0 for the first) in base 36, optionally
// followed by "." and, in base 36, how many consecutive numbers follow it. 1000001 to 1000100 is
// "lflt.2r"; 7, 9, 10 and 11 is "7,2.2".

// MaxJobEvents bounds how many events one job's compact form may name.
const MaxJobEvents = 10000

// ErrBadSeqs means a job's compact event list is malformed.
var ErrBadSeqs = errors.New("malformed event sequence list")

// EncodeSeqs returns the compact form of seqs (positive, in any order;
// duplicates are named once).
func EncodeSeqs(seqs []int64) string {
	s := slices.Clone(seqs)
	slices.Sort(s)
	s = slices.Compact(s)
	var b []byte
	prev := int64(0)
	for i := 0; i < len(s); {
		run := 1
		for i+run < len(s) && s[i+run] == s[i]+int64(run) {
			run++
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, s[i]-prev, 36)
		if run > 1 {
			b = append(b, '.')
			b = strconv.AppendInt(b, int64(run-1), 36)
		}
		prev = s[i+run-1]
		i += run
	}
	return string(b)
}

// DecodeSeqs returns the numbers a compact form names, ascending.
// Errors: ErrBadSeqs, also for more than MaxJobEvents numbers.
func DecodeSeqs(form string) ([]int64, error) {
	if form == "" {
		return nil, nil
	}
	out := make([]int64, 0, min(strings.Count(form, ",")+1, MaxJobEvents))
	cur := int64(0)
	for item := range strings.SplitSeq(form, ",") {
		delta, more, hasRun := strings.Cut(item, ".")
		d, err := strconv.ParseInt(delta, 36, 64)
		if err != nil || d < 1 {
			return nil, ErrBadSeqs
		}
		var n int64
		if hasRun {
			if n, err = strconv.ParseInt(more, 36, 64); err != nil || n < 1 {
				return nil, ErrBadSeqs
			}
		}
		if n >= MaxJobEvents || int64(len(out))+n+1 > MaxJobEvents || cur > (1<<63-1)-d-n {
			return nil, ErrBadSeqs
		}
		cur += d
		for i := int64(0); i <= n; i++ {
			out = append(out, cur+i)
		}
		cur += n
	}
	return out, nil
}
