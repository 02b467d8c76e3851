package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// ExportTo streams your visible transactions created in [p.Since, p.Until)
// from GET /transactions/export into w as they arrive, and returns the bytes
// written: any range, in p.Format (CSV, or a JSON array), the same bytes as
// Export's Content. A refusal before the stream starts is the usual typed
// error (*ValidationError naming format, since or until, *RateLimitError,
// ...). A stream the server could not finish ends with an error wrapping
// io.ErrUnexpectedEOF: what w holds is then incomplete. ctx bounds the whole
// export; it is sent once, never retried.
func (s *TransactionsService) ExportTo(ctx context.Context, w io.Writer, p ExportParams) (int64, error) {
	q := url.Values{"format": {string(p.Format)}}
	if !p.Since.IsZero() {
		q.Set("since", formatTime(p.Since))
	}
	if !p.Until.IsZero() {
		q.Set("until", formatTime(p.Until))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.c.endpoint("/transactions/export?"+q.Encode()), nil)
	if err != nil {
		return 0, fmt.Errorf("agenttrust transactions.exportTo: %w", err)
	}
	s.c.identify(req.Header)
	resp, err := s.c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("agenttrust transactions.exportTo: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return 0, decodeREST(&answer{status: resp.StatusCode, header: resp.Header, body: raw})
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("agenttrust transactions.exportTo: after %d bytes: %w", n, err)
	}
	return n, nil
}
